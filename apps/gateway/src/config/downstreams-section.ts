import {
  parseSelectorList,
  resolveResilienceOptions,
  SelectorError,
  type BreakerMode,
  type BreakerOptions,
  type OperationSelector,
  type ResolvedResilienceOptions,
  type RetryOptions,
} from '@tollgate/gateway-core';
import { ConfigError, type ConfigProblem } from '@tollgate/gateway-core/errors';
import { checkDownstreamHeaders } from '@tollgate/gateway-core/internal';

/** One API behind the gateway, from `Gw:Downstreams:<name>:*` or the single-key form. */
export interface DownstreamConfig {
  /** Lower-case letters, digits and `-`: it labels metrics, readiness components and audit records. */
  name: string;
  baseUrl: string;
  /** Put before each of its tool names, joined by `_` (see TOOL_PREFIX_SEPARATOR); empty = none. */
  prefix: string;
  /** Sent on every call to this downstream only. */
  headers: Record<string, string>;
  maxResponseBytes: number;
  /** Breaker, retries and deadline (`deadlineMs` is the downstream's `TimeoutMs`). */
  resilience: ResolvedResilienceOptions;
  /** The audience the gateway's signed assertions name for this downstream. */
  audience: string;
  /** Its tools come from this OpenAPI document instead of `GET /gw/schema`. */
  openApi?: OpenApiSource;
}

/** `Gw:Downstreams:<name>:OpenApi` and `:Operations:*`. */
export interface OpenApiSource {
  /** An http(s) URL or a file path. */
  location: string;
  include: OperationSelector[];
  exclude: OperationSelector[];
  allowWrite: OperationSelector[];
}

/** The name the single-key form's downstream goes by. */
export const SHORTHAND_DOWNSTREAM = 'default';

/**
 * Up to 32 characters, starting and ending with a letter or
 * digit: short enough for a metrics label and a component key.
 */
const DOWNSTREAM_NAME = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/**
 * What a prefix may hold: MCP tool-name characters, without `.` and `/` that some model APIs refuse in function names.
 */
const PREFIX = /^[A-Za-z0-9_-]{1,64}$/;

/** The gateway-wide settings a named downstream starts from (each undefined when unset), and the single-key form. */
export interface DownstreamDefaults {
  breaker: BreakerOptions;
  retry: RetryOptions;
  timeoutMs: number | undefined;
  maxResponseBytes: number;
  /** `Gw:ToolRegistry:DownstreamBaseUrl` and its `Gw:Downstream:*` settings, when that form is used. */
  shorthand: Omit<DownstreamConfig, 'name' | 'prefix'> | undefined;
}

/**
 * Reads `Gw:Downstreams:<name>:<Setting>` (`entries` as `section()` gives
 * them) into one config per downstream, after the single-key form's
 * `default` when that is set too: both forms together are one more
 * downstream each. Names match case-insensitively like every key, and are
 * read in lower case. Every problem is added to `problems` under its key.
 */
export function parseDownstreams(
  entries: Record<string, string>,
  defaults: DownstreamDefaults,
  problems: ConfigProblem[],
): DownstreamConfig[] {
  const named = groupByName(entries, problems);
  const downstreams: DownstreamConfig[] = [];
  if (defaults.shorthand) {
    downstreams.push({ name: SHORTHAND_DOWNSTREAM, prefix: '', ...defaults.shorthand });
    if (named.has(SHORTHAND_DOWNSTREAM)) {
      problems.push({
        path: `Gw:Downstreams:${SHORTHAND_DOWNSTREAM}`,
        message:
          `is the name of the downstream set by Gw:ToolRegistry:DownstreamBaseUrl; choose another name, or drop ` +
          `that key`,
      });
      named.delete(SHORTHAND_DOWNSTREAM);
    }
  }
  for (const [name, settings] of named) {
    const parsed = namedDownstream(name, settings, defaults, problems);
    if (parsed) downstreams.push(parsed);
  }
  return downstreams;
}

/** Setting → value per downstream name, in the order names first appear; a bad name is reported once. */
function groupByName(
  entries: Record<string, string>,
  problems: ConfigProblem[],
): Map<string, Map<string, { key: string; value: string }>> {
  const byName = new Map<string, Map<string, { key: string; value: string }>>();
  const refused = new Set<string>();
  for (const [path, value] of Object.entries(entries)) {
    const [written = '', ...rest] = path.split(':');
    const name = written.toLowerCase();
    const key = `Gw:Downstreams:${path}`;
    if (!DOWNSTREAM_NAME.test(name)) {
      if (!refused.has(name))
        problems.push({
          path: `Gw:Downstreams:${written}`,
          message:
            'a downstream name must be 1-32 lower-case letters, digits or -, starting and ending with a letter ' +
            'or digit',
        });
      refused.add(name);
      continue;
    }
    if (rest.length === 0) {
      problems.push({
        path: key,
        message: 'expected Gw:Downstreams:<name>:<Setting> (BaseUrl, Prefix, Headers:<Name>, TimeoutMs, ...)',
      });
      continue;
    }
    const settings = byName.get(name) ?? new Map<string, { key: string; value: string }>();
    byName.set(name, settings);
    settings.set(rest.join(':').toLowerCase(), { key, value });
  }
  return byName;
}

type Settings = Map<string, { key: string; value: string }>;

const NUMBER_SETTINGS = {
  timeoutms: 'TimeoutMs',
  retries: 'Retries',
  retrymindelayms: 'RetryMinDelayMs',
  retrymaxdelayms: 'RetryMaxDelayMs',
  maxresponsebytes: 'MaxResponseBytes',
  'breaker:failurethreshold': 'Breaker:FailureThreshold',
  'breaker:failureratio': 'Breaker:FailureRatio',
  'breaker:windowseconds': 'Breaker:WindowSeconds',
  'breaker:minimumcalls': 'Breaker:MinimumCalls',
  'breaker:breakseconds': 'Breaker:BreakSeconds',
} as const;
const OPERATION_SETTINGS = {
  'operations:include': 'Include',
  'operations:exclude': 'Exclude',
  'operations:allowwrite': 'AllowWrite',
} as const;
const TEXT_SETTINGS = ['baseurl', 'prefix', 'audience', 'breaker:mode', 'openapi', ...Object.keys(OPERATION_SETTINGS)];
const KNOWN =
  'BaseUrl, Prefix, Headers:<Name>, TimeoutMs, Retries, RetryMinDelayMs, RetryMaxDelayMs, MaxResponseBytes, ' +
  'Audience, OpenApi, Operations:<Include|Exclude|AllowWrite> or Breaker:<Setting>';

/** The core's option path → the setting under `Gw:Downstreams:<name>:`. */
const SETTING_OF_OPTION: Readonly<Record<string, string>> = {
  deadlineMs: 'TimeoutMs',
  'retry.retries': 'Retries',
  'retry.minDelayMs': 'RetryMinDelayMs',
  'retry.maxDelayMs': 'RetryMaxDelayMs',
  'breaker.mode': 'Breaker:Mode',
  'breaker.failureThreshold': 'Breaker:FailureThreshold',
  'breaker.failureRatio': 'Breaker:FailureRatio',
  'breaker.windowMs': 'Breaker:WindowSeconds',
  'breaker.minimumCalls': 'Breaker:MinimumCalls',
  'breaker.breakMs': 'Breaker:BreakSeconds',
};

function namedDownstream(
  name: string,
  settings: Settings,
  defaults: DownstreamDefaults,
  problems: ConfigProblem[],
): DownstreamConfig | undefined {
  const at = (setting: string) => `Gw:Downstreams:${name}:${setting}`;
  const before = problems.length;
  const headers: Record<string, string> = {};
  const numbers: Partial<Record<keyof typeof NUMBER_SETTINGS, number>> = {};
  for (const [setting, { key, value }] of settings) {
    if (setting.startsWith('headers:')) headers[key.slice(at('Headers:').length)] = value;
    else if (setting in NUMBER_SETTINGS) {
      const number = Number(value);
      if (value.trim() === '' || !Number.isFinite(number)) problems.push({ path: key, message: 'must be a number' });
      else numbers[setting as keyof typeof NUMBER_SETTINGS] = number;
    } else if (!TEXT_SETTINGS.includes(setting)) problems.push({ path: key, message: `unknown setting (${KNOWN})` });
  }
  const text = (setting: string) => {
    const value = settings.get(setting)?.value.trim();
    return value === '' ? undefined : value;
  };

  const baseUrl = text('baseurl');
  if (baseUrl === undefined)
    problems.push({ path: at('BaseUrl'), message: 'is required: the address of this downstream API' });
  else if (!isHttpUrl(baseUrl)) problems.push({ path: at('BaseUrl'), message: 'must be an http(s) URL' });
  const prefix = text('prefix') ?? '';
  if (prefix !== '' && !PREFIX.test(prefix))
    problems.push({ path: at('Prefix'), message: 'must be 1-64 characters of A-Z, a-z, 0-9, _ or -' });
  const audience = text('audience');
  if (audience !== undefined && !/^[\x21-\x7e]{1,256}$/.test(audience)) {
    problems.push({
      path: at('Audience'),
      message: 'must be a URL or a name: up to 256 printable characters, no spaces',
    });
  }
  const maxResponseBytes = numbers.maxresponsebytes ?? defaults.maxResponseBytes;
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes <= 0)
    problems.push({ path: at('MaxResponseBytes'), message: 'must be a positive whole number' });

  adding(
    problems,
    (path) => at(`Headers:${path.slice('downstream.headers.'.length)}`),
    () => checkDownstreamHeaders(headers),
  );
  const resilience = adding(
    problems,
    (path) => at(SETTING_OF_OPTION[path] ?? path),
    () =>
      resolveResilienceOptions({
        breaker: {
          ...defaults.breaker,
          ...defined({
            mode: text('breaker:mode') as BreakerMode | undefined,
            failureThreshold: numbers['breaker:failurethreshold'],
            failureRatio: numbers['breaker:failureratio'],
            windowMs: seconds(numbers['breaker:windowseconds']),
            minimumCalls: numbers['breaker:minimumcalls'],
            breakMs: seconds(numbers['breaker:breakseconds']),
          }),
        },
        retry: {
          ...defaults.retry,
          ...defined({
            retries: numbers.retries,
            minDelayMs: numbers.retrymindelayms,
            maxDelayMs: numbers.retrymaxdelayms,
          }),
        },
        deadlineMs: numbers.timeoutms ?? defaults.timeoutMs,
      }),
  );
  const openApi = openApiSource(text, at, problems);
  if (problems.length > before || resilience === undefined || baseUrl === undefined) return undefined;
  return {
    name,
    baseUrl,
    prefix,
    headers,
    maxResponseBytes,
    resilience,
    audience: audience ?? baseUrl,
    ...(openApi ? { openApi } : {}),
  };
}

/** Where the downstream's OpenAPI document is, and which of its operations to import; undefined without `OpenApi`. */
function openApiSource(
  text: (setting: string) => string | undefined,
  at: (setting: string) => string,
  problems: ConfigProblem[],
): OpenApiSource | undefined {
  const location = text('openapi');
  const selectors: Partial<Record<keyof typeof OPERATION_SETTINGS, OperationSelector[]>> = {};
  for (const [setting, name] of Object.entries(OPERATION_SETTINGS) as Array<
    [keyof typeof OPERATION_SETTINGS, string]
  >) {
    const value = text(setting);
    if (value === undefined) continue;
    if (location === undefined)
      problems.push({
        path: at(`Operations:${name}`),
        message: "applies only with OpenApi (the downstream's OpenAPI document)",
      });
    try {
      selectors[setting] = parseSelectorList(value);
    } catch (error) {
      if (!(error instanceof SelectorError)) throw error;
      problems.push({
        path: at(`Operations:${name}`),
        message: `${error.message}; selectors are operationIds, tag:<tag> or "METHOD /path" with * for any text`,
      });
    }
  }
  if (location === undefined) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location) && !isHttpUrl(location))
    problems.push({ path: at('OpenApi'), message: 'must be an http(s) URL or a file path' });
  return {
    location,
    include: selectors['operations:include'] ?? [],
    exclude: selectors['operations:exclude'] ?? [],
    allowWrite: selectors['operations:allowwrite'] ?? [],
  };
}

/** Runs one of the core's checks, adding its problems under this downstream's keys. */
function adding<T>(problems: ConfigProblem[], keyOf: (path: string) => string, check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems.map(({ path, message }) => ({ path: keyOf(path), message })));
    return undefined;
  }
}

function isHttpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

function seconds(value: number | undefined): number | undefined {
  return value === undefined ? undefined : value * 1000;
}

/** Drops unset values, so they do not hide the gateway-wide ones when spread. */
function defined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}
