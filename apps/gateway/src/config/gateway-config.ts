import { randomBytes } from 'node:crypto';
import {
  resolveAssertionSettings,
  resolveResilienceOptions,
  type BreakerMode,
  type BreakerOptions,
  type RetryOptions,
  type PrivacyConfig,
  type ResolvedResilienceOptions,
  type AssertionAlgorithm,
  type ResolvedAssertionSettings,
} from '@tollgate/gateway-core';
import { ConfigError, type ConfigProblem } from '@tollgate/gateway-core/errors';
import { parseStoreUrl, type RateLimit } from '@tollgate/gateway-core/store';
import {
  apiKeyWeakness,
  checkDownstreamHeaders,
  checkSigningKey,
  DEFAULT_MAX_RESPONSE_BYTES,
  MIN_SIGNING_KEY_BYTES,
} from '@tollgate/gateway-core/internal';
import { ADMIN_KEYS } from './admin-section.js';
import { ASSERTION_KEYS } from './assertion-section.js';
import { readKeys, type SectionValues } from './declare.js';
import { BREAKER_KEYS } from './breaker-section.js';
import { DEV_DOWNSTREAM, DOWNSTREAM_KEYS, RETRY_KEYS } from './downstream-section.js';
import { perToolCache, type ToolCacheOptions } from './cache-section.js';
import { CONFIG_KEYS, OPEN_SECTIONS } from './keys.js';
import { MCP_KEYS } from './mcp-section.js';
import { DEFAULT_EMBEDDING_MODEL, EMBEDDING_KEYS } from './search-section.js';
import { MODE_KEYS, SERVER_KEYS, STORE_KEYS } from './server-section.js';
import { oauthConfigFromSection, type OAuthConfig } from './oauth-section.js';
import { parseDownstreams, type DownstreamConfig } from './downstreams-section.js';
import { privacyConfigFromSection } from './privacy-section.js';
import { defaultRateLimitFromSection } from './rate-limit-section.js';
import { maxResumesOf } from './resume-bounds.js';
import { lookup, section, type FlatConfig } from './sources.js';
import { sharedStoreProblem } from './workers.js';

export interface GatewayConfig {
  development: boolean;
  server: { port: number; host: string };
  licenseKey: string;
  jwt: { signingKey: string; generated: boolean };
  /** `timeoutMs` is `resilience.deadlineMs`: one attempt and the whole call share the deadline. */
  /**
   * `maxResponseBytes`: the longest answer read (streamed, cut
   * at the limit; a larger Content-Length is refused unread).
   */
  /**
   * The gateway-wide `Gw:Downstream:*` settings; `baseUrl` is the single-key form's, else the first named downstream's.
   */
  downstream: { baseUrl: string; timeoutMs: number; headers: Record<string, string>; maxResponseBytes: number };
  /**
   * Every API behind the gateway: `Gw:Downstreams:<name>:*`, after the single-key form's `default` when that is set.
   */
  downstreams: DownstreamConfig[];
  store: { connectionString: string | undefined };
  /**
   * `signInMaxFailures` wrong keys from one address, then a wait
   * of `signInBackoffMs`, doubled per further failure (to 15 min).
   */
  admin: { apiKey: string | undefined; tokenExpiryDays: number; signInMaxFailures: number; signInBackoffMs: number };
  /**
   * `errorDelivery`: MCP's rules (tool errors and refusals in HTTP 200), or contract 7's HTTP statuses.
   * `maxConcurrentCallsPerAgent`: tools/call requests in flight per agent on this instance (0 = no limit).
   * `maxResumesPerAgent`, `maxResumes`: resumed streams waiting on this instance, per agent and in all.
   * `maxListenStreamsPerAgent`, `maxListenStreams`: MCP 2026-07-28
   * `subscriptions/listen` streams open on this instance.
   */
  mcp: {
    sessionIdleMinutes: number;
    maxBodyBytes: number;
    keepAliveMs: number;
    errorDelivery: 'mcp' | 'http-status';
    resumeWindowMs: number;
    maxSessionsPerAgent: number;
    maxConcurrentCallsPerAgent: number;
    maxResumesPerAgent: number;
    maxResumes: number;
    maxListenStreamsPerAgent: number;
    maxListenStreams: number;
  };
  cache: {
    enabled: boolean;
    semantic: boolean;
    similarityThreshold: number;
    ttlMs: number;
    tools: Record<string, ToolCacheOptions>;
  };
  http: {
    allowedOrigins: string[];
    allowedHosts: string[];
    shutdownDeadlineMs: number;
    /** Until a request's headers are in; then until the whole request (body included) is in. */
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    /** An idle keep-alive connection is closed after this long. */
    keepAliveTimeoutMs: number;
    maxConnections: number;
    /** Request body bytes the instance holds at once while bodies arrive (each agent up to an eighth). */
    maxPendingBodyBytes: number;
    /** Gateway processes sharing the port (Node's cluster module); 1 = no cluster. */
    workers: number;
  };
  toolRegistry: { refreshSeconds: number };
  /**
   * `Gw:Usage:RetentionDays`: whole UTC days of usage counters kept (the dashboard's charts, `GET /management/usage`).
   */
  usage: { retentionDays: number };
  /** `Gw:Privacy:*` (and the rules file it names), validated and compiled once at start-up. */
  privacy: PrivacyConfig;
  /** `Gw:OAuth:*`: trusted issuers and the resource they issue tokens for; null = only the gateway's own tokens. */
  oauth: OAuthConfig | null;
  /** A separate port serving /metrics without authentication; undefined = only the admin-protected /metrics. */
  metrics: { port: number | undefined };
  /** `Gw:RateLimit:Default*`: the rate limit of a new agent created without one; null = none. */
  rateLimit: { defaultLimit: RateLimit | null };
  /** Checked and completed with the core's defaults. */
  resilience: ResolvedResilienceOptions;
  /** `Gw:Assertion:*`: the signed assertion on every forwarded call (keys derived from `jwt.signingKey`). */
  assertion: ResolvedAssertionSettings & { enabled: boolean };
  embedding: { provider: 'local' } | { provider: 'openai'; baseUrl: string; model: string; apiKey: string | undefined };
  /**
   * `Gw:Catalog:Search*`: search mode (search_tools and call_tool instead of the whole catalog), per agent overridable.
   */
  catalog: { search: 'off' | 'on' | 'auto'; searchThreshold: number; searchSemanticWeight: number };
}

/**
 * The key behind each core option, so a problem the core finds names the key
 * to fix. An entry also covers the options below it (`downstream.headers.X`
 * → `Gw:Downstream:Headers:X`). `breaker.windowMs` and `breaker.breakMs` are
 * set in seconds here: the core's messages about them name no unit. The
 * privacy options map in privacy-section.ts, which knows the tool names.
 */
const KEY_OF_OPTION: Readonly<Record<string, string>> = {
  signingKey: SERVER_KEYS.signingKey.name,
  'store.url': STORE_KEYS.connectionString.name,
  'downstream.headers': OPEN_SECTIONS.downstreamHeaders,
  deadlineMs: DOWNSTREAM_KEYS.timeoutMs.name,
  'breaker.mode': BREAKER_KEYS.mode.name,
  'breaker.failureThreshold': BREAKER_KEYS.failureThreshold.name,
  'breaker.failureRatio': BREAKER_KEYS.failureRatio.name,
  'breaker.windowMs': BREAKER_KEYS.windowSeconds.name,
  'breaker.minimumCalls': BREAKER_KEYS.minimumCalls.name,
  'breaker.breakMs': BREAKER_KEYS.breakSeconds.name,
  'retry.retries': RETRY_KEYS.retries.name,
  'retry.minDelayMs': RETRY_KEYS.retryMinDelayMs.name,
  'retry.maxDelayMs': RETRY_KEYS.retryMaxDelayMs.name,
  'assertion.algorithm': ASSERTION_KEYS.algorithm.name,
  'assertion.issuer': ASSERTION_KEYS.issuer.name,
  'assertion.rotationMinutes': ASSERTION_KEYS.rotationMinutes.name,
  'assertion.lifetimeSeconds': ASSERTION_KEYS.lifetimeSeconds.name,
};

/** The core's option path → the key users write; a path that is no core option (already a key) is kept. */
function configKeyOf(path: string): string {
  const exact = KEY_OF_OPTION[path];
  if (exact !== undefined) return exact;
  for (const [option, key] of Object.entries(KEY_OF_OPTION)) {
    if (path.startsWith(`${option}.`)) return `${key}:${path.slice(option.length + 1)}`;
  }
  return path;
}

/** The same problems, each named by its configuration key. */
export function withConfigKeys(error: ConfigError): ConfigError {
  return new ConfigError(error.problems.map(({ path, message }) => ({ path: configKeyOf(path), message })));
}

type Groups = typeof CONFIG_KEYS;
type Values = { [G in keyof Groups]: SectionValues<Groups[G]> };
type ReadValues = { [G in keyof Groups]: Partial<Values[G]> };

/**
 * Every group of single keys, by the names users write (contract 5), so each
 * validation problem names the key to fix in one line. Keys of core options
 * are only parsed (left undefined when unset): the core's checks and defaults
 * apply to them, in `parseGatewayConfig`.
 */
function readGroups(flat: FlatConfig, development: boolean, problems: ConfigProblem[]): ReadValues {
  const read = Object.entries(CONFIG_KEYS).map(([name, keys]) => [name, readKeys(keys, flat, development, problems)]);
  return Object.fromEntries(read) as ReadValues;
}

/** The admin API key's floor, in characters: anyone who guesses it is an admin. */
export const MIN_ADMIN_API_KEY_LENGTH = 32;

/**
 * A guessable admin API key (short, blank, repeated, too little variety) is a
 * problem in production and a warning in development mode, except a blank
 * one, which is never what anyone meant (unset turns the management API off).
 * Neither message shows the key. Reads the value as written: the schema trims
 * it, which made 32 spaces look unset. Returns the warning.
 */
function checkAdminApiKey(
  written: string | undefined,
  development: boolean,
  problems: ConfigProblem[],
): string | undefined {
  if (written === undefined) return undefined;
  const key = written.trim();
  if (key === '') {
    problems.push({
      path: ADMIN_KEYS.apiKey.name,
      message:
        'is blank: set a random key (e.g. openssl rand -hex 32), or leave it unset to turn the management API off',
    });
    return undefined;
  }
  const short = [...key].length < MIN_ADMIN_API_KEY_LENGTH;
  const weakness = short ? `is shorter than ${MIN_ADMIN_API_KEY_LENGTH} characters` : apiKeyWeakness(key);
  if (weakness === null) return undefined;
  if (development) return `${ADMIN_KEYS.apiKey.name} ${weakness}: accepted in development mode only`;
  const message = short
    ? `must be at least ${MIN_ADMIN_API_KEY_LENGTH} characters`
    : `${weakness}, so it can be guessed: use a random key`;
  problems.push({ path: ADMIN_KEYS.apiKey.name, message: `${message} (e.g. openssl rand -hex 32)` });
  return undefined;
}

export interface ParsedConfig {
  config: GatewayConfig;
  warnings: string[];
}

export function parseGatewayConfig(flat: FlatConfig): ParsedConfig {
  const problems: ConfigProblem[] = [];
  const development = readKeys(MODE_KEYS, flat, false, problems).nodeEnv === 'development';
  const values = readGroups(flat, development, problems);
  const { server, store, downstream, mcp, http, embedding, assertion: assertionKeys } = values;
  /** Runs one of the core's checks, adding its problems under their keys. */
  const core = <T>(check: () => T): T | undefined => {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...withConfigKeys(error).problems);
      return undefined;
    }
  };

  const signingKeyValue = server.signingKey;
  if (signingKeyValue !== undefined) core(() => checkSigningKey(signingKeyValue));
  const storeUrl = core(() => parseStoreUrl(store.connectionString));
  const headers = section(flat, OPEN_SECTIONS.downstreamHeaders);
  core(() => checkDownstreamHeaders(headers));
  const resilience = core(() =>
    resolveResilienceOptions({
      breaker: breakerKeys(values),
      retry: retryKeys(values),
      deadlineMs: downstream.timeoutMs,
    }),
  );
  // `in`: a BaseUrl that did not parse is reported already.
  if (embedding.provider === 'openai' && 'baseUrl' in embedding && embedding.baseUrl === undefined) {
    problems.push({
      path: EMBEDDING_KEYS.baseUrl.name,
      message: `is required when ${EMBEDDING_KEYS.provider.name} is openai`,
    });
  }
  const workersProblem = sharedStoreProblem(http.workers, store.connectionString);
  if (workersProblem) problems.push(workersProblem);
  const downstreams = downstreamsOf(flat, values, development, headers, resilience, problems);
  // A Gw:Http:MaxConnections that did not parse is reported already.
  const maxConnections = http.maxConnections;
  const maxResumes = maxConnections === undefined ? 1 : maxResumesOf(mcp.maxResumes, maxConnections, problems);
  // One agent may not hold more than the whole instance; not reported again when either did not parse.
  const [listensPerAgent, listens] = [mcp.maxListenStreamsPerAgent, mcp.maxListenStreams];
  if (listensPerAgent !== undefined && listens !== undefined && listensPerAgent > listens) {
    problems.push({
      path: MCP_KEYS.maxListenStreamsPerAgent.name,
      message: `must not exceed ${MCP_KEYS.maxListenStreams.name} (${listens})`,
    });
  }
  const adminKeyWarning = checkAdminApiKey(lookup(flat, ADMIN_KEYS.apiKey.name), development, problems);
  const cacheTools = perToolCache(section(flat, OPEN_SECTIONS.cacheTools), problems);
  const defaultRateLimit = defaultRateLimitFromSection(section(flat, OPEN_SECTIONS.rateLimit), problems);
  const privacy = core(() => privacyConfigFromSection(section(flat, OPEN_SECTIONS.privacy)));
  const assertion = core(() =>
    resolveAssertionSettings({
      algorithm: assertionKeys.algorithm as AssertionAlgorithm | undefined,
      issuer: assertionKeys.issuer,
      rotationMinutes: assertionKeys.rotationMinutes,
      lifetimeSeconds: assertionKeys.lifetimeSeconds,
    }),
  );
  const developmentResource = development
    ? `http://127.0.0.1:${server.port ?? SERVER_KEYS.port.field.schema.parse(undefined)}/mcp`
    : undefined;
  const oauth = oauthConfigFromSection(section(flat, OPEN_SECTIONS.oauth), problems, developmentResource);
  if (problems.length > 0 || resilience === undefined || privacy === undefined || assertion === undefined)
    throw new ConfigError(problems);

  const data = values as Values;
  const warnings: string[] = adminKeyWarning === undefined ? [] : [adminKeyWarning];
  let signingKey = data.server.signingKey;
  const generated = signingKey === undefined;
  if (signingKey === undefined) {
    signingKey = randomBytes(MIN_SIGNING_KEY_BYTES).toString('base64url');
    warnings.push(
      `${SERVER_KEYS.signingKey.name} is not set: generated a key for this process (development mode); tokens ` +
        `die with it`,
    );
  }
  return {
    warnings,
    config: {
      development,
      server: { port: data.server.port, host: data.server.host },
      licenseKey: data.server.licenseKey,
      jwt: { signingKey, generated },
      downstream: {
        baseUrl: data.downstream.baseUrl ?? (downstreams[0] as DownstreamConfig).baseUrl,
        timeoutMs: resilience.deadlineMs,
        headers,
        maxResponseBytes: data.downstream.maxResponseBytes,
      },
      downstreams,
      store: { connectionString: storeUrl },
      admin: {
        apiKey: data.admin.apiKey,
        tokenExpiryDays: data.admin.tokenExpiryDays,
        signInMaxFailures: data.admin.signInMaxFailures,
        signInBackoffMs: data.admin.signInBackoffSeconds * 1000,
      },
      mcp: {
        sessionIdleMinutes: data.mcp.sessionIdleMinutes,
        maxBodyBytes: data.mcp.maxBodyBytes,
        keepAliveMs: data.mcp.keepAliveSeconds * 1000,
        errorDelivery: data.mcp.errorDelivery,
        resumeWindowMs: data.mcp.resumeWindowSeconds * 1000,
        maxSessionsPerAgent: data.mcp.maxSessionsPerAgent,
        maxConcurrentCallsPerAgent: data.mcp.maxConcurrentCallsPerAgent,
        maxResumesPerAgent: data.mcp.maxResumesPerAgent,
        maxResumes,
        maxListenStreamsPerAgent: data.mcp.maxListenStreamsPerAgent,
        maxListenStreams: data.mcp.maxListenStreams,
      },
      cache: {
        enabled: data.cache.enabled,
        semantic: data.cache.semantic,
        similarityThreshold: data.cache.similarityThreshold,
        ttlMs: data.cache.ttlSeconds * 1000,
        tools: cacheTools,
      },
      http: {
        allowedOrigins: data.http.allowedOrigins,
        allowedHosts: data.http.allowedHosts,
        shutdownDeadlineMs: data.http.shutdownDeadlineSeconds * 1000,
        headersTimeoutMs: data.http.headersTimeoutSeconds * 1000,
        requestTimeoutMs: data.http.requestTimeoutSeconds * 1000,
        keepAliveTimeoutMs: data.http.keepAliveTimeoutSeconds * 1000,
        maxConnections: data.http.maxConnections,
        maxPendingBodyBytes: data.http.maxPendingBodyBytes,
        workers: data.http.workers,
      },
      toolRegistry: { refreshSeconds: data.toolRegistry.refreshSeconds },
      usage: { retentionDays: data.usage.retentionDays },
      metrics: { port: data.metrics.port },
      rateLimit: { defaultLimit: defaultRateLimit },
      privacy,
      oauth,
      resilience,
      assertion: { enabled: data.assertion.enabled, ...assertion },
      embedding:
        data.embedding.provider === 'openai'
          ? {
              provider: 'openai',
              baseUrl: data.embedding.baseUrl as string,
              model: data.embedding.model ?? DEFAULT_EMBEDDING_MODEL,
              apiKey: data.embedding.apiKey,
            }
          : { provider: 'local' },
      catalog: {
        search: data.catalog.search,
        searchThreshold: data.catalog.searchThreshold,
        searchSemanticWeight: data.catalog.searchSemanticWeight,
      },
    },
  };
}

/**
 * The APIs behind the gateway: the single-key form (`Gw:ToolRegistry:DownstreamBaseUrl`
 * with `Gw:Downstream:*`, named `default`), the named ones of `Gw:Downstreams:*`,
 * or both. Named ones start from the gateway-wide `Gw:Downstream:*` (not its
 * headers) and `Gw:Breaker:*` values. Development mode falls back to the
 * sample downstream's address only when neither form names one.
 */
function downstreamsOf(
  flat: FlatConfig,
  values: ReadValues,
  development: boolean,
  headers: Record<string, string>,
  resilience: ResolvedResilienceOptions | undefined,
  problems: ConfigProblem[],
): DownstreamConfig[] {
  const { downstream } = values;
  const named = section(flat, OPEN_SECTIONS.downstreams);
  const namesSome = Object.keys(named).length > 0;
  const baseUrl = downstream.baseUrl ?? (development && !namesSome ? DEV_DOWNSTREAM : undefined);
  const maxResponseBytes = downstream.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  // `in`: a key that did not parse is reported already.
  if (baseUrl === undefined && !namesSome && 'baseUrl' in downstream) {
    problems.push({
      path: DOWNSTREAM_KEYS.baseUrl.name,
      message: 'is required: the downstream API (or name several under Gw:Downstreams:<name>:BaseUrl)',
    });
  }
  // Gateway-wide values that the core refused are reported once, under their own keys: named downstreams then start
  // from the core's defaults.
  const inherited = resilience !== undefined;
  return parseDownstreams(
    named,
    {
      breaker: !inherited ? {} : definedOnly(breakerKeys(values)),
      retry: !inherited ? {} : definedOnly(retryKeys(values)),
      timeoutMs: inherited ? downstream.timeoutMs : undefined,
      maxResponseBytes,
      shorthand:
        baseUrl === undefined || resilience === undefined
          ? undefined
          : { baseUrl, headers, maxResponseBytes, resilience, audience: downstream.audience ?? baseUrl },
    },
    problems,
  );
}

/** The gateway-wide `Gw:Breaker:*` keys as the core's breaker options (seconds to ms). */
function breakerKeys({ breaker }: ReadValues): BreakerOptions {
  return {
    mode: breaker.mode as BreakerMode | undefined,
    failureThreshold: breaker.failureThreshold,
    failureRatio: breaker.failureRatio,
    windowMs: milliseconds(breaker.windowSeconds),
    minimumCalls: breaker.minimumCalls,
    breakMs: milliseconds(breaker.breakSeconds),
  };
}

/** The gateway-wide retry keys as the core's retry options. */
function retryKeys({ retry }: ReadValues): RetryOptions {
  return { retries: retry.retries, minDelayMs: retry.retryMinDelayMs, maxDelayMs: retry.retryMaxDelayMs };
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function milliseconds(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : seconds * 1000;
}
