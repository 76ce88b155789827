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
  DEFAULT_LISTEN_LIMITS,
  MIN_SIGNING_KEY_BYTES,
} from '@tollgate/gateway-core/internal';
import { z } from 'zod';
import { oauthConfigFromSection, type OAuthConfig } from './oauth-section.js';
import { parseDownstreams, type DownstreamConfig } from './downstreams-section.js';
import { privacyConfigFromSection } from './privacy-section.js';
import { defaultRateLimitFromSection } from './rate-limit-section.js';
import { maxResumesOf } from './resume-bounds.js';
import { lookup, section, type FlatConfig } from './sources.js';
import { sharedStoreProblem, workersField } from './workers.js';

export interface GatewayConfig {
  development: boolean;
  server: { port: number; host: string };
  licenseKey: string;
  jwt: { signingKey: string; generated: boolean };
  /** `timeoutMs` is `resilience.deadlineMs`: one attempt and the whole call share the deadline. */
  /** `maxResponseBytes`: the longest answer read (streamed, cut at the limit; a larger Content-Length is refused unread). */
  /** The gateway-wide `Gw:Downstream:*` settings; `baseUrl` is the single-key form's, else the first named downstream's. */
  downstream: { baseUrl: string; timeoutMs: number; headers: Record<string, string>; maxResponseBytes: number };
  /** Every API behind the gateway: `Gw:Downstreams:<name>:*`, after the single-key form's `default` when that is set. */
  downstreams: DownstreamConfig[];
  store: { connectionString: string | undefined };
  /** `signInMaxFailures` wrong keys from one address, then a wait of `signInBackoffMs`, doubled per further failure (to 15 min). */
  admin: { apiKey: string | undefined; tokenExpiryDays: number; signInMaxFailures: number; signInBackoffMs: number };
  /**
   * `errorDelivery`: MCP's rules (tool errors and refusals in HTTP 200), or contract 7's HTTP statuses.
   * `maxConcurrentCallsPerAgent`: tools/call requests in flight per agent on this instance (0 = no limit).
   * `maxResumesPerAgent`, `maxResumes`: resumed streams waiting on this instance, per agent and in all.
   * `maxListenStreamsPerAgent`, `maxListenStreams`: MCP 2026-07-28 `subscriptions/listen` streams open on this instance.
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
    tools: Record<string, { enabled?: boolean; semantic?: boolean; ttlMs?: number }>;
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
  /** `Gw:Usage:RetentionDays`: whole UTC days of usage counters kept (the dashboard's charts, `GET /management/usage`). */
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
  /** `Gw:Catalog:Search*`: search mode (search_tools and call_tool instead of the whole catalog), per agent overridable. */
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
  signingKey: 'Gw:Jwt:SigningKey',
  'store.url': 'ConnectionStrings:Store',
  'downstream.headers': 'Gw:Downstream:Headers',
  deadlineMs: 'Gw:Downstream:TimeoutMs',
  'breaker.mode': 'Gw:Breaker:Mode',
  'breaker.failureThreshold': 'Gw:Breaker:FailureThreshold',
  'breaker.failureRatio': 'Gw:Breaker:FailureRatio',
  'breaker.windowMs': 'Gw:Breaker:WindowSeconds',
  'breaker.minimumCalls': 'Gw:Breaker:MinimumCalls',
  'breaker.breakMs': 'Gw:Breaker:BreakSeconds',
  'retry.retries': 'Gw:Downstream:Retries',
  'retry.minDelayMs': 'Gw:Downstream:RetryMinDelayMs',
  'retry.maxDelayMs': 'Gw:Downstream:RetryMaxDelayMs',
  'assertion.algorithm': 'Gw:Assertion:Algorithm',
  'assertion.issuer': 'Gw:Assertion:Issuer',
  'assertion.rotationMinutes': 'Gw:Assertion:RotationMinutes',
  'assertion.lifetimeSeconds': 'Gw:Assertion:LifetimeSeconds',
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

const DEV_DOWNSTREAM = 'http://127.0.0.1:8081';

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const positiveInt = (fallback: number) =>
  z.coerce.number().int('must be a whole number').positive('must be positive').default(fallback);

/** A number for a core option: the core checks its range, and applies its default when unset. */
const optionNumber = z.coerce.number({ error: 'must be a number' }).optional();

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const commaList = z
  .string()
  .optional()
  .transform((value) => (value ?? '').split(',').map((item) => item.trim()).filter(Boolean));

const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', 'True', 'False', 'TRUE', 'FALSE', '1', '0'], { error: 'must be true or false' })
    .transform((value) => value.toLowerCase() === 'true' || value === '1')
    .default(fallback);

const LIST_KEYS: readonly string[] = ['Gw:Http:AllowedOrigins', 'Gw:Http:AllowedHosts'];

/**
 * The whole configuration surface, keyed by the names users write (contract 5),
 * so each validation problem names the key to fix in one line. Keys of core
 * options are only parsed here (left undefined when unset): the core's
 * checks and defaults apply to them, in `parseGatewayConfig`.
 */
function schemaFor(development: boolean) {
  return z.object({
    PORT: z.coerce.number().int('must be a whole number').min(0).max(65_535, 'must be a TCP port').default(8080),
    HOST: z.string().trim().min(1).default('0.0.0.0'),
    'Gw:LicenseKey': z
      .string({ error: 'is required: the gateway refuses to start without a license key' })
      .trim()
      .min(1, 'is required: the gateway refuses to start without a license key'),
    'Gw:Jwt:SigningKey': development ? optionalText : z.string({ error: `is required (at least ${MIN_SIGNING_KEY_BYTES} bytes)` }),
    // Required unless Gw:Downstreams names some (checked in parseGatewayConfig); the dev default applies only then.
    'Gw:ToolRegistry:DownstreamBaseUrl': httpUrl.optional(),
    'Gw:Downstream:TimeoutMs': optionNumber,
    'Gw:Downstream:MaxResponseBytes': positiveInt(DEFAULT_MAX_RESPONSE_BYTES),
    'ConnectionStrings:Store': optionalText,
    'Gw:Admin:ApiKey': optionalText,
    'Gw:Admin:TokenExpiryDays': positiveInt(90),
    'Gw:Admin:SignInMaxFailures': positiveInt(5),
    'Gw:Admin:SignInBackoffSeconds': z.coerce.number().positive('must be positive').max(900, 'must be at most 900 (the longest wait)').default(1),
    'Gw:Mcp:SessionIdleMinutes': positiveInt(30),
    'Gw:Mcp:MaxBodyBytes': positiveInt(1024 * 1024),
    'Gw:Mcp:KeepAliveSeconds': z.coerce.number().positive('must be positive').default(5),
    'Gw:Mcp:ResumeWindowSeconds': positiveInt(120),
    // One credential normally backs a handful of clients, each with one session: 100 leaves room for a fleet sharing one.
    'Gw:Mcp:MaxSessionsPerAgent': positiveInt(100),
    // A quarter of the downstream pool's 128 connections: room for parallel tool loops, never one agent's whole pool (0 = no limit).
    'Gw:Mcp:MaxConcurrentCallsPerAgent': z.coerce.number().int('must be a whole number').min(0, 'must not be negative (0 = no limit)').default(32),
    // A few clients of one credential resuming at once; the total defaults to half of Gw:Http:MaxConnections (resume-bounds.ts).
    'Gw:Mcp:MaxResumesPerAgent': positiveInt(8),
    'Gw:Mcp:MaxResumes': z.coerce.number().int('must be a whole number').positive('must be positive').optional(),
    // A handful of clients of one credential each listening; the total is idle sockets and timers (gateway-core DEFAULT_LISTEN_LIMITS).
    'Gw:Mcp:MaxListenStreamsPerAgent': positiveInt(DEFAULT_LISTEN_LIMITS.maxPerAgent),
    'Gw:Mcp:MaxListenStreams': positiveInt(DEFAULT_LISTEN_LIMITS.maxTotal),
    'Gw:Mcp:ErrorDelivery': z.enum(['mcp', 'http-status'], { error: 'must be mcp or http-status' }).default('mcp'),
    'Gw:Cache:Enabled': booleanFlag(true),
    'Gw:Cache:Semantic': booleanFlag(true),
    'Gw:Cache:SimilarityThreshold': z.coerce.number().gt(0, 'must be above 0').max(1, 'must be at most 1').default(0.88),
    'Gw:Cache:TtlSeconds': positiveInt(300),
    'Gw:Http:AllowedOrigins': commaList,
    'Gw:Http:AllowedHosts': commaList,
    'Gw:Http:ShutdownDeadlineSeconds': positiveInt(15),
    'Gw:Http:HeadersTimeoutSeconds': positiveInt(10),
    'Gw:Http:RequestTimeoutSeconds': positiveInt(30),
    'Gw:Http:KeepAliveTimeoutSeconds': positiveInt(5),
    'Gw:Http:MaxConnections': positiveInt(1024),
    'Gw:Http:MaxPendingBodyBytes': positiveInt(64 * 1024 * 1024),
    'Gw:Http:Workers': workersField(),
    'Gw:Breaker:Mode': optionalText,
    'Gw:Breaker:FailureThreshold': optionNumber,
    'Gw:Breaker:FailureRatio': optionNumber,
    'Gw:Breaker:WindowSeconds': optionNumber,
    'Gw:Breaker:MinimumCalls': optionNumber,
    'Gw:Breaker:BreakSeconds': optionNumber,
    'Gw:Downstream:Retries': optionNumber,
    'Gw:Downstream:RetryMinDelayMs': optionNumber,
    'Gw:Downstream:RetryMaxDelayMs': optionNumber,
    'Gw:Metrics:Port': z.coerce.number().int().min(1).max(65_535, 'must be a TCP port').optional(),
    'Gw:Usage:RetentionDays': z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(400, 'must be at most 400').default(35),
    'Gw:ToolRegistry:RefreshSeconds': z.coerce.number().int('must be a whole number').min(0, 'must not be negative (0 = off)').default(300),
    'Gw:Catalog:Search': z.enum(['off', 'on', 'auto'], { error: 'must be off, on or auto' }).default('off'),
    'Gw:Catalog:SearchThreshold': positiveInt(64),
    'Gw:Catalog:SearchSemanticWeight': z.coerce.number({ error: 'must be a number' }).min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1').default(0),
    'Gw:Embedding:Provider': z.enum(['local', 'openai']).default('local'),
    'Gw:Embedding:BaseUrl': httpUrl.optional(),
    'Gw:Embedding:Model': optionalText,
    'Gw:Embedding:ApiKey': optionalText,
    'Gw:Assertion:Enabled': booleanFlag(true),
    'Gw:Assertion:Algorithm': optionalText,
    'Gw:Assertion:Issuer': optionalText,
    'Gw:Assertion:RotationMinutes': optionNumber,
    'Gw:Assertion:LifetimeSeconds': optionNumber,
  });
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
function checkAdminApiKey(written: string | undefined, development: boolean, problems: ConfigProblem[]): string | undefined {
  if (written === undefined) return undefined;
  const key = written.trim();
  if (key === '') {
    problems.push({ path: 'Gw:Admin:ApiKey', message: 'is blank: set a random key (e.g. openssl rand -hex 32), or leave it unset to turn the management API off' });
    return undefined;
  }
  const short = [...key].length < MIN_ADMIN_API_KEY_LENGTH;
  const weakness = short ? `is shorter than ${MIN_ADMIN_API_KEY_LENGTH} characters` : apiKeyWeakness(key);
  if (weakness === null) return undefined;
  if (development) return `Gw:Admin:ApiKey ${weakness}: accepted in development mode only`;
  const message = short ? `must be at least ${MIN_ADMIN_API_KEY_LENGTH} characters` : `${weakness}, so it can be guessed: use a random key`;
  problems.push({ path: 'Gw:Admin:ApiKey', message: `${message} (e.g. openssl rand -hex 32)` });
  return undefined;
}

export interface ParsedConfig {
  config: GatewayConfig;
  warnings: string[];
}

type Values = z.output<ReturnType<typeof schemaFor>>;

export function parseGatewayConfig(flat: FlatConfig): ParsedConfig {
  const development = lookup(flat, 'NODE_ENV') === 'development';
  const problems: ConfigProblem[] = [];
  const values = readKeys(schemaFor(development), flat, problems);
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

  const signingKeyValue = values['Gw:Jwt:SigningKey'];
  if (signingKeyValue !== undefined) core(() => checkSigningKey(signingKeyValue));
  const storeUrl = core(() => parseStoreUrl(values['ConnectionStrings:Store']));
  const headers = section(flat, 'Gw:Downstream:Headers');
  core(() => checkDownstreamHeaders(headers));
  const resilience = core(() =>
    resolveResilienceOptions({ breaker: breakerKeys(values), retry: retryKeys(values), deadlineMs: values['Gw:Downstream:TimeoutMs'] }),
  );
  // `in`: a BaseUrl that did not parse is reported already.
  if (values['Gw:Embedding:Provider'] === 'openai' && 'Gw:Embedding:BaseUrl' in values && values['Gw:Embedding:BaseUrl'] === undefined) {
    problems.push({ path: 'Gw:Embedding:BaseUrl', message: 'is required when Gw:Embedding:Provider is openai' });
  }
  const workersProblem = sharedStoreProblem(values['Gw:Http:Workers'], values['ConnectionStrings:Store']);
  if (workersProblem) problems.push(workersProblem);
  const downstreams = downstreamsOf(flat, values, development, headers, resilience, problems);
  // A Gw:Http:MaxConnections that did not parse is reported already.
  const maxConnections = values['Gw:Http:MaxConnections'];
  const maxResumes = maxConnections === undefined ? 1 : maxResumesOf(values['Gw:Mcp:MaxResumes'], maxConnections, problems);
  // One agent may not hold more than the whole instance; not reported again when either did not parse.
  const [listensPerAgent, listens] = [values['Gw:Mcp:MaxListenStreamsPerAgent'], values['Gw:Mcp:MaxListenStreams']];
  if (listensPerAgent !== undefined && listens !== undefined && listensPerAgent > listens) {
    problems.push({ path: 'Gw:Mcp:MaxListenStreamsPerAgent', message: `must not exceed Gw:Mcp:MaxListenStreams (${listens})` });
  }
  const adminKeyWarning = checkAdminApiKey(lookup(flat, 'Gw:Admin:ApiKey'), development, problems);
  const cacheTools = perToolCache(section(flat, 'Gw:Cache:Tools'), problems);
  const defaultRateLimit = defaultRateLimitFromSection(section(flat, 'Gw:RateLimit'), problems);
  const privacy = core(() => privacyConfigFromSection(section(flat, 'Gw:Privacy')));
  const assertion = core(() =>
    resolveAssertionSettings({
      algorithm: values['Gw:Assertion:Algorithm'] as AssertionAlgorithm | undefined,
      issuer: values['Gw:Assertion:Issuer'],
      rotationMinutes: values['Gw:Assertion:RotationMinutes'],
      lifetimeSeconds: values['Gw:Assertion:LifetimeSeconds'],
    }),
  );
  const developmentResource = development ? `http://127.0.0.1:${values.PORT ?? 8080}/mcp` : undefined;
  const oauth = oauthConfigFromSection(section(flat, 'Gw:OAuth'), problems, developmentResource);
  if (problems.length > 0 || resilience === undefined || privacy === undefined || assertion === undefined) throw new ConfigError(problems);

  const data = values as Values;
  const warnings: string[] = adminKeyWarning === undefined ? [] : [adminKeyWarning];
  let signingKey = data['Gw:Jwt:SigningKey'];
  const generated = signingKey === undefined;
  if (signingKey === undefined) {
    signingKey = randomBytes(MIN_SIGNING_KEY_BYTES).toString('base64url');
    warnings.push('Gw:Jwt:SigningKey is not set: generated a key for this process (development mode); tokens die with it');
  }
  return {
    warnings,
    config: {
      development,
      server: { port: data.PORT, host: data.HOST },
      licenseKey: data['Gw:LicenseKey'],
      jwt: { signingKey, generated },
      downstream: {
        baseUrl: data['Gw:ToolRegistry:DownstreamBaseUrl'] ?? (downstreams[0] as DownstreamConfig).baseUrl,
        timeoutMs: resilience.deadlineMs,
        headers,
        maxResponseBytes: data['Gw:Downstream:MaxResponseBytes'],
      },
      downstreams,
      store: { connectionString: storeUrl },
      admin: {
        apiKey: data['Gw:Admin:ApiKey'],
        tokenExpiryDays: data['Gw:Admin:TokenExpiryDays'],
        signInMaxFailures: data['Gw:Admin:SignInMaxFailures'],
        signInBackoffMs: data['Gw:Admin:SignInBackoffSeconds'] * 1000,
      },
      mcp: {
        sessionIdleMinutes: data['Gw:Mcp:SessionIdleMinutes'],
        maxBodyBytes: data['Gw:Mcp:MaxBodyBytes'],
        keepAliveMs: data['Gw:Mcp:KeepAliveSeconds'] * 1000,
        errorDelivery: data['Gw:Mcp:ErrorDelivery'],
        resumeWindowMs: data['Gw:Mcp:ResumeWindowSeconds'] * 1000,
        maxSessionsPerAgent: data['Gw:Mcp:MaxSessionsPerAgent'],
        maxConcurrentCallsPerAgent: data['Gw:Mcp:MaxConcurrentCallsPerAgent'],
        maxResumesPerAgent: data['Gw:Mcp:MaxResumesPerAgent'],
        maxResumes,
        maxListenStreamsPerAgent: data['Gw:Mcp:MaxListenStreamsPerAgent'],
        maxListenStreams: data['Gw:Mcp:MaxListenStreams'],
      },
      cache: {
        enabled: data['Gw:Cache:Enabled'],
        semantic: data['Gw:Cache:Semantic'],
        similarityThreshold: data['Gw:Cache:SimilarityThreshold'],
        ttlMs: data['Gw:Cache:TtlSeconds'] * 1000,
        tools: cacheTools,
      },
      http: {
        allowedOrigins: data['Gw:Http:AllowedOrigins'],
        allowedHosts: data['Gw:Http:AllowedHosts'],
        shutdownDeadlineMs: data['Gw:Http:ShutdownDeadlineSeconds'] * 1000,
        headersTimeoutMs: data['Gw:Http:HeadersTimeoutSeconds'] * 1000,
        requestTimeoutMs: data['Gw:Http:RequestTimeoutSeconds'] * 1000,
        keepAliveTimeoutMs: data['Gw:Http:KeepAliveTimeoutSeconds'] * 1000,
        maxConnections: data['Gw:Http:MaxConnections'],
        maxPendingBodyBytes: data['Gw:Http:MaxPendingBodyBytes'],
        workers: data['Gw:Http:Workers'],
      },
      toolRegistry: { refreshSeconds: data['Gw:ToolRegistry:RefreshSeconds'] },
      usage: { retentionDays: data['Gw:Usage:RetentionDays'] },
      metrics: { port: data['Gw:Metrics:Port'] },
      rateLimit: { defaultLimit: defaultRateLimit },
      privacy,
      oauth,
      resilience,
      assertion: { enabled: data['Gw:Assertion:Enabled'], ...assertion },
      embedding:
        data['Gw:Embedding:Provider'] === 'openai'
          ? {
              provider: 'openai',
              baseUrl: data['Gw:Embedding:BaseUrl'] as string,
              model: data['Gw:Embedding:Model'] ?? 'text-embedding-3-small',
              apiKey: data['Gw:Embedding:ApiKey'],
            }
          : { provider: 'local' },
      catalog: { search: data['Gw:Catalog:Search'], searchThreshold: data['Gw:Catalog:SearchThreshold'], searchSemanticWeight: data['Gw:Catalog:SearchSemanticWeight'] },
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
  values: Partial<Values>,
  development: boolean,
  headers: Record<string, string>,
  resilience: ResolvedResilienceOptions | undefined,
  problems: ConfigProblem[],
): DownstreamConfig[] {
  const named = section(flat, 'Gw:Downstreams');
  const namesSome = Object.keys(named).length > 0;
  const baseUrl = values['Gw:ToolRegistry:DownstreamBaseUrl'] ?? (development && !namesSome ? DEV_DOWNSTREAM : undefined);
  const maxResponseBytes = values['Gw:Downstream:MaxResponseBytes'] ?? DEFAULT_MAX_RESPONSE_BYTES;
  // `in`: a key that did not parse is reported already.
  if (baseUrl === undefined && !namesSome && 'Gw:ToolRegistry:DownstreamBaseUrl' in values) {
    problems.push({ path: 'Gw:ToolRegistry:DownstreamBaseUrl', message: 'is required: the downstream API (or name several under Gw:Downstreams:<name>:BaseUrl)' });
  }
  // Gateway-wide values that the core refused are reported once, under their own keys: named downstreams then start from the core's defaults.
  const inherited = resilience !== undefined;
  return parseDownstreams(
    named,
    {
      breaker: !inherited ? {} : definedOnly(breakerKeys(values)),
      retry: !inherited ? {} : definedOnly(retryKeys(values)),
      timeoutMs: inherited ? values['Gw:Downstream:TimeoutMs'] : undefined,
      maxResponseBytes,
      shorthand:
        baseUrl === undefined || resilience === undefined
          ? undefined
          : { baseUrl, headers, maxResponseBytes, resilience, audience: lookup(flat, 'Gw:Downstream:Audience')?.trim() || baseUrl },
    },
    problems,
  );
}

/** The gateway-wide `Gw:Breaker:*` keys as the core's breaker options (seconds to ms). */
function breakerKeys(values: Partial<Values>): BreakerOptions {
  return {
    mode: values['Gw:Breaker:Mode'] as BreakerMode | undefined,
    failureThreshold: values['Gw:Breaker:FailureThreshold'],
    failureRatio: values['Gw:Breaker:FailureRatio'],
    windowMs: milliseconds(values['Gw:Breaker:WindowSeconds']),
    minimumCalls: values['Gw:Breaker:MinimumCalls'],
    breakMs: milliseconds(values['Gw:Breaker:BreakSeconds']),
  };
}

/** The gateway-wide retry keys as the core's retry options. */
function retryKeys(values: Partial<Values>): RetryOptions {
  return { retries: values['Gw:Downstream:Retries'], minDelayMs: values['Gw:Downstream:RetryMinDelayMs'], maxDelayMs: values['Gw:Downstream:RetryMaxDelayMs'] };
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** `Gw:Cache:Tools:<tool>:Enabled|Semantic|TtlSeconds`: per-tool opt-out and TTL. */
function perToolCache(entries: Record<string, string>, problems: ConfigProblem[]): GatewayConfig['cache']['tools'] {
  const tools: GatewayConfig['cache']['tools'] = {};
  for (const [path, value] of Object.entries(entries)) {
    const [tool, setting, ...rest] = path.split(':');
    const key = `Gw:Cache:Tools:${path}`;
    if (!tool || !setting || rest.length > 0) {
      problems.push({ path: key, message: 'expected Gw:Cache:Tools:<tool>:Enabled|Semantic|TtlSeconds' });
      continue;
    }
    const options = (tools[tool] ??= {});
    const lowered = setting.toLowerCase();
    if (lowered === 'enabled' || lowered === 'semantic') {
      if (!/^(true|false|1|0)$/i.test(value)) problems.push({ path: key, message: 'must be true or false' });
      else options[lowered] = /^(true|1)$/i.test(value);
    } else if (lowered === 'ttlseconds') {
      const seconds = Number(value);
      if (!Number.isInteger(seconds) || seconds <= 0) problems.push({ path: key, message: 'must be a positive whole number' });
      else options.ttlMs = seconds * 1000;
    } else {
      problems.push({ path: key, message: 'unknown setting (Enabled, Semantic or TtlSeconds)' });
    }
  }
  return tools;
}

/**
 * Each key parsed on its own, so the core's checks still run on the keys
 * that parsed when others did not, and every problem is reported at once.
 * List keys may also come as JSON arrays (`Key:0`, `Key:1`, ...).
 */
function readKeys(schema: ReturnType<typeof schemaFor>, flat: FlatConfig, problems: ConfigProblem[]): Partial<Values> {
  const values: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const raw = lookup(flat, key) ?? (LIST_KEYS.includes(key) ? Object.values(section(flat, key)).join(',') || undefined : undefined);
    const parsed = (field as z.ZodType).safeParse(raw);
    if (parsed.success) values[key] = parsed.data;
    else for (const issue of parsed.error.issues) problems.push({ path: key, message: issue.message });
  }
  return values as Partial<Values>;
}

function milliseconds(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : seconds * 1000;
}
