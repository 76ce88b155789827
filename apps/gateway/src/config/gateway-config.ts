import { randomBytes } from 'node:crypto';
import { ConfigError as CoreConfigError, createPrivacyFilter, privacyConfigFromSection, type PrivacyConfig } from '@tollgate/gateway-core';
import { z } from 'zod';
import { lookup, section, type FlatConfig } from './sources.js';

export interface GatewayConfig {
  development: boolean;
  server: { port: number; host: string };
  licenseKey: string;
  jwt: { signingKey: string; generated: boolean };
  downstream: { baseUrl: string; timeoutMs: number; headers: Record<string, string> };
  store: { connectionString: string | undefined };
  admin: { apiKey: string | undefined; tokenExpiryDays: number };
  mcp: { sessionIdleMinutes: number; maxBodyBytes: number; keepAliveMs: number };
  cache: {
    enabled: boolean;
    semantic: boolean;
    similarityThreshold: number;
    ttlMs: number;
    tools: Record<string, { enabled?: boolean; semantic?: boolean; ttlMs?: number }>;
  };
  http: { allowedOrigins: string[]; allowedHosts: string[]; shutdownDeadlineMs: number };
  toolRegistry: { refreshSeconds: number };
  /** `Gw:Privacy:*` (and the rules file it names), validated and compiled once at start-up. */
  privacy: PrivacyConfig;
  /** A separate port serving /metrics without authentication; undefined = only the admin-protected /metrics. */
  metrics: { port: number | undefined };
  resilience: {
    breaker: { mode: 'consecutive' | 'ratio'; failureThreshold: number; failureRatio: number; windowMs: number; minimumCalls: number; breakMs: number };
    retry: { retries: number; minDelayMs: number; maxDelayMs: number };
  };
  embedding: { provider: 'local' } | { provider: 'openai'; baseUrl: string; model: string; apiKey: string | undefined };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

const MIN_SIGNING_KEY_BYTES = 32;
const DEV_DOWNSTREAM = 'http://127.0.0.1:8081';

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const positiveInt = (fallback: number) =>
  z.coerce.number().int('must be a whole number').positive('must be positive').default(fallback);

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const storeAddress = optionalText.refine(
  (value) => value === undefined || /^rediss?:\/\/[^\s]+$/.test(value),
  'must be a redis:// or rediss:// URL (leave unset for the embedded in-memory store)',
);

const commaList = z
  .string()
  .optional()
  .transform((value) => (value ?? '').split(',').map((item) => item.trim()).filter(Boolean));

const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', 'True', 'False', 'TRUE', 'FALSE', '1', '0'], { error: 'must be true or false' })
    .transform((value) => value.toLowerCase() === 'true' || value === '1')
    .default(fallback);

const LIST_KEYS = ['Gw:Http:AllowedOrigins', 'Gw:Http:AllowedHosts'] as const;

const headerValue = z.string().refine((value) => !/[\r\n]/.test(value), 'must not contain CR or LF');

/**
 * The whole configuration surface, keyed by the names users write (spec 5),
 * so each validation problem names the key to fix in one line.
 */
function schemaFor(development: boolean) {
  return z.object({
    PORT: z.coerce.number().int('must be a whole number').min(0).max(65_535, 'must be a TCP port').default(8080),
    HOST: z.string().trim().min(1).default('0.0.0.0'),
    'Gw:LicenseKey': z
      .string({ error: 'is required: the gateway refuses to start without a license key' })
      .trim()
      .min(1, 'is required: the gateway refuses to start without a license key'),
    'Gw:Jwt:SigningKey': development
      ? optionalText.refine(isLongEnough, signingKeyMessage)
      : z.string({ error: 'is required (at least 32 bytes)' }).refine(isLongEnough, signingKeyMessage),
    'Gw:ToolRegistry:DownstreamBaseUrl': development ? httpUrl.default(DEV_DOWNSTREAM) : httpUrl,
    'Gw:Downstream:TimeoutMs': positiveInt(10_000),
    'ConnectionStrings:Store': storeAddress,
    'Gw:Admin:ApiKey': optionalText,
    'Gw:Admin:TokenExpiryDays': positiveInt(90),
    'Gw:Mcp:SessionIdleMinutes': positiveInt(30),
    'Gw:Mcp:MaxBodyBytes': positiveInt(1024 * 1024),
    'Gw:Mcp:KeepAliveSeconds': z.coerce.number().positive('must be positive').default(5),
    'Gw:Cache:Enabled': booleanFlag(true),
    'Gw:Cache:Semantic': booleanFlag(true),
    'Gw:Cache:SimilarityThreshold': z.coerce.number().gt(0, 'must be above 0').max(1, 'must be at most 1').default(0.92),
    'Gw:Cache:TtlSeconds': positiveInt(300),
    'Gw:Http:AllowedOrigins': commaList,
    'Gw:Http:AllowedHosts': commaList,
    'Gw:Http:ShutdownDeadlineSeconds': positiveInt(15),
    'Gw:Breaker:Mode': z.enum(['consecutive', 'ratio']).default('consecutive'),
    'Gw:Breaker:FailureThreshold': positiveInt(5),
    'Gw:Breaker:FailureRatio': z.coerce.number().gt(0, 'must be above 0').lt(1, 'must be below 1').default(0.5),
    'Gw:Breaker:WindowSeconds': positiveInt(30),
    'Gw:Breaker:MinimumCalls': positiveInt(10),
    'Gw:Breaker:BreakSeconds': z.coerce.number().positive('must be positive').default(30),
    'Gw:Downstream:Retries': z.coerce.number().int('must be a whole number').min(0).max(2, 'must be at most 2').default(2),
    'Gw:Downstream:RetryMinDelayMs': z.coerce.number().int().min(0).default(50),
    'Gw:Downstream:RetryMaxDelayMs': z.coerce.number().int().min(0).default(250),
    'Gw:Metrics:Port': z.coerce.number().int().min(1).max(65_535, 'must be a TCP port').optional(),
    'Gw:ToolRegistry:RefreshSeconds': z.coerce.number().int('must be a whole number').min(0, 'must not be negative (0 = off)').default(300),
    'Gw:Embedding:Provider': z.enum(['local', 'openai']).default('local'),
    'Gw:Embedding:BaseUrl': httpUrl.optional(),
    'Gw:Embedding:Model': optionalText,
    'Gw:Embedding:ApiKey': optionalText,
  });
}

function isLongEnough(key: string | undefined): boolean {
  return key === undefined || Buffer.byteLength(key, 'utf8') >= MIN_SIGNING_KEY_BYTES;
}

const signingKeyMessage = `must be at least ${MIN_SIGNING_KEY_BYTES} bytes (e.g. openssl rand -hex 32)`;

export interface ParsedConfig {
  config: GatewayConfig;
  warnings: string[];
}

export function parseGatewayConfig(flat: FlatConfig): ParsedConfig {
  const development = lookup(flat, 'NODE_ENV') === 'development';
  const schema = schemaFor(development);
  const raw = Object.fromEntries(Object.keys(schema.shape).map((key) => [key, lookup(flat, key)]));
  // List keys may also come as JSON arrays (`Key:0`, `Key:1`, ...).
  for (const key of LIST_KEYS) raw[key] ??= Object.values(section(flat, key)).join(',') || undefined;
  const parsed = schema.safeParse(raw);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(':')}: ${issue.message}`);

  const headers = section(flat, 'Gw:Downstream:Headers');
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) problems.push(`Gw:Downstream:Headers:${name}: not a valid header name`);
    if (!headerValue.safeParse(value).success) problems.push(`Gw:Downstream:Headers:${name}: must not contain CR or LF`);
  }
  if (parsed.success && parsed.data['Gw:Embedding:Provider'] === 'openai' && !parsed.data['Gw:Embedding:BaseUrl']) {
    problems.push('Gw:Embedding:BaseUrl: is required when Gw:Embedding:Provider is openai');
  }
  const cacheTools = perToolCache(section(flat, 'Gw:Cache:Tools'), problems);
  const privacy = privacyConfig(section(flat, 'Gw:Privacy'), problems);
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);

  const data = parsed.data;
  const warnings: string[] = [];
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
        baseUrl: data['Gw:ToolRegistry:DownstreamBaseUrl'],
        timeoutMs: data['Gw:Downstream:TimeoutMs'],
        headers,
      },
      store: { connectionString: data['ConnectionStrings:Store'] },
      admin: { apiKey: data['Gw:Admin:ApiKey'], tokenExpiryDays: data['Gw:Admin:TokenExpiryDays'] },
      mcp: {
        sessionIdleMinutes: data['Gw:Mcp:SessionIdleMinutes'],
        maxBodyBytes: data['Gw:Mcp:MaxBodyBytes'],
        keepAliveMs: data['Gw:Mcp:KeepAliveSeconds'] * 1000,
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
      },
      toolRegistry: { refreshSeconds: data['Gw:ToolRegistry:RefreshSeconds'] },
      metrics: { port: data['Gw:Metrics:Port'] },
      privacy,
      resilience: {
        breaker: {
          mode: data['Gw:Breaker:Mode'],
          failureThreshold: data['Gw:Breaker:FailureThreshold'],
          failureRatio: data['Gw:Breaker:FailureRatio'],
          windowMs: data['Gw:Breaker:WindowSeconds'] * 1000,
          minimumCalls: data['Gw:Breaker:MinimumCalls'],
          breakMs: data['Gw:Breaker:BreakSeconds'] * 1000,
        },
        retry: {
          retries: data['Gw:Downstream:Retries'],
          minDelayMs: data['Gw:Downstream:RetryMinDelayMs'],
          maxDelayMs: data['Gw:Downstream:RetryMaxDelayMs'],
        },
      },
      embedding:
        data['Gw:Embedding:Provider'] === 'openai'
          ? {
              provider: 'openai',
              baseUrl: data['Gw:Embedding:BaseUrl'] as string,
              model: data['Gw:Embedding:Model'] ?? 'text-embedding-3-small',
              apiKey: data['Gw:Embedding:ApiKey'],
            }
          : { provider: 'local' },
    },
  };
}

/** `Gw:Cache:Tools:<tool>:Enabled|Semantic|TtlSeconds`: per-tool opt-out and TTL. */
function perToolCache(entries: Record<string, string>, problems: string[]): GatewayConfig['cache']['tools'] {
  const tools: GatewayConfig['cache']['tools'] = {};
  for (const [path, value] of Object.entries(entries)) {
    const [tool, setting, ...rest] = path.split(':');
    const key = `Gw:Cache:Tools:${path}`;
    if (!tool || !setting || rest.length > 0) {
      problems.push(`${key}: expected Gw:Cache:Tools:<tool>:Enabled|Semantic|TtlSeconds`);
      continue;
    }
    const options = (tools[tool] ??= {});
    const lowered = setting.toLowerCase();
    if (lowered === 'enabled' || lowered === 'semantic') {
      if (!/^(true|false|1|0)$/i.test(value)) problems.push(`${key}: must be true or false`);
      else options[lowered] = /^(true|1)$/i.test(value);
    } else if (lowered === 'ttlseconds') {
      const seconds = Number(value);
      if (!Number.isInteger(seconds) || seconds <= 0) problems.push(`${key}: must be a positive whole number`);
      else options.ttlMs = seconds * 1000;
    } else {
      problems.push(`${key}: unknown setting (Enabled, Semantic or TtlSeconds)`);
    }
  }
  return tools;
}

/** The privacy rules; compiling them here turns a bad pattern into a start-up problem like any other. */
function privacyConfig(entries: Record<string, string>, problems: string[]): PrivacyConfig {
  try {
    const config = privacyConfigFromSection(entries);
    createPrivacyFilter(config);
    return config;
  } catch (error) {
    if (!(error instanceof CoreConfigError)) throw error;
    problems.push(error.message);
    return {};
  }
}
