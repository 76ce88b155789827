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
import { fieldOf, keyName, matchKey } from './declare.js';
import {
  DOWNSTREAMS_KEYS,
  DOWNSTREAMS_SECTION as SECTION,
  type DownstreamSetting,
  KNOWN_SETTINGS,
} from './downstreams-keys.js';

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
        path: `${SECTION}:${SHORTHAND_DOWNSTREAM}`,
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
    const key = `${SECTION}:${path}`;
    if (!DOWNSTREAM_NAME.test(name)) {
      if (!refused.has(name))
        problems.push({
          path: `${SECTION}:${written}`,
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

/** The core's option path → the per-downstream key it is set by. */
const KEY_OF_OPTION: Readonly<Record<string, DownstreamSetting>> = {
  deadlineMs: 'timeoutMs',
  'retry.retries': 'retries',
  'retry.minDelayMs': 'retryMinDelayMs',
  'retry.maxDelayMs': 'retryMaxDelayMs',
  'breaker.mode': 'breakerMode',
  'breaker.failureThreshold': 'breakerFailureThreshold',
  'breaker.failureRatio': 'breakerFailureRatio',
  'breaker.windowMs': 'breakerWindowSeconds',
  'breaker.minimumCalls': 'breakerMinimumCalls',
  'breaker.breakMs': 'breakerBreakSeconds',
};

function namedDownstream(
  name: string,
  settings: Settings,
  defaults: DownstreamDefaults,
  problems: ConfigProblem[],
): DownstreamConfig | undefined {
  const at = (setting: DownstreamSetting, ...parts: string[]) => keyName(DOWNSTREAMS_KEYS[setting], name, ...parts);
  const before = problems.length;
  const { values, headers } = readSettings(settings, problems);
  const number = (setting: DownstreamSetting) => values[setting] as number | undefined;
  const text = (setting: DownstreamSetting) => values[setting] as string | undefined;

  const baseUrl = text('baseUrl');
  if (baseUrl === undefined)
    problems.push({ path: at('baseUrl'), message: 'is required: the address of this downstream API' });
  else if (!isHttpUrl(baseUrl)) problems.push({ path: at('baseUrl'), message: 'must be an http(s) URL' });
  const prefix = text('prefix') ?? '';
  if (prefix !== '' && !PREFIX.test(prefix))
    problems.push({ path: at('prefix'), message: 'must be 1-64 characters of A-Z, a-z, 0-9, _ or -' });
  const audience = text('audience');
  if (audience !== undefined && !/^[\x21-\x7e]{1,256}$/.test(audience)) {
    problems.push({
      path: at('audience'),
      message: 'must be a URL or a name: up to 256 printable characters, no spaces',
    });
  }
  const maxResponseBytes = number('maxResponseBytes') ?? defaults.maxResponseBytes;
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes <= 0)
    problems.push({ path: at('maxResponseBytes'), message: 'must be a positive whole number' });

  adding(
    problems,
    (path) => at('headers', path.slice('downstream.headers.'.length)),
    () => checkDownstreamHeaders(headers),
  );
  const resilience = adding(
    problems,
    (path) => (KEY_OF_OPTION[path] === undefined ? `${SECTION}:${name}:${path}` : at(KEY_OF_OPTION[path])),
    () =>
      resolveResilienceOptions({
        breaker: {
          ...defaults.breaker,
          ...defined({
            mode: text('breakerMode') as BreakerMode | undefined,
            failureThreshold: number('breakerFailureThreshold'),
            failureRatio: number('breakerFailureRatio'),
            windowMs: seconds(number('breakerWindowSeconds')),
            minimumCalls: number('breakerMinimumCalls'),
            breakMs: seconds(number('breakerBreakSeconds')),
          }),
        },
        retry: {
          ...defaults.retry,
          ...defined({
            retries: number('retries'),
            minDelayMs: number('retryMinDelayMs'),
            maxDelayMs: number('retryMaxDelayMs'),
          }),
        },
        deadlineMs: number('timeoutMs') ?? defaults.timeoutMs,
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

/**
 * One downstream's written settings, each parsed by its declaration; a
 * setting no declaration matches, or a value that does not parse, is a
 * problem under its key. Header names are kept as written.
 */
function readSettings(
  settings: Settings,
  problems: ConfigProblem[],
): { values: Partial<Record<DownstreamSetting, unknown>>; headers: Record<string, string> } {
  const values: Partial<Record<DownstreamSetting, unknown>> = {};
  const headers: Record<string, string> = {};
  for (const { key, value } of settings.values()) {
    const match = matchKey(DOWNSTREAMS_KEYS, key, { lastTakesRest: true });
    if (match === undefined) problems.push({ path: key, message: `unknown setting (${KNOWN_SETTINGS})` });
    else if (match.id === 'headers') headers[match.parts[1] as string] = value;
    else {
      const parsed = fieldOf(DOWNSTREAMS_KEYS[match.id], false).schema.safeParse(value);
      if (parsed.success) values[match.id] = parsed.data;
      else for (const issue of parsed.error.issues) problems.push({ path: key, message: issue.message });
    }
  }
  return { values, headers };
}

const OPERATION_SETTINGS = ['operationsInclude', 'operationsExclude', 'operationsAllowWrite'] as const;

/** Where the downstream's OpenAPI document is, and which of its operations to import; undefined without `OpenApi`. */
function openApiSource(
  text: (setting: DownstreamSetting) => string | undefined,
  at: (setting: DownstreamSetting) => string,
  problems: ConfigProblem[],
): OpenApiSource | undefined {
  const location = text('openApi');
  const selectors: Partial<Record<(typeof OPERATION_SETTINGS)[number], OperationSelector[]>> = {};
  for (const setting of OPERATION_SETTINGS) {
    const value = text(setting);
    if (value === undefined) continue;
    if (location === undefined)
      problems.push({ path: at(setting), message: "applies only with OpenApi (the downstream's OpenAPI document)" });
    try {
      selectors[setting] = parseSelectorList(value);
    } catch (error) {
      if (!(error instanceof SelectorError)) throw error;
      problems.push({
        path: at(setting),
        message: `${error.message}; selectors are operationIds, tag:<tag> or "METHOD /path" with * for any text`,
      });
    }
  }
  if (location === undefined) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location) && !isHttpUrl(location))
    problems.push({ path: at('openApi'), message: 'must be an http(s) URL or a file path' });
  return {
    location,
    include: selectors.operationsInclude ?? [],
    exclude: selectors.operationsExclude ?? [],
    allowWrite: selectors.operationsAllowWrite ?? [],
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
