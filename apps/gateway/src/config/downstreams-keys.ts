import { z } from 'zod';
import { BREAKER_KEYS } from './breaker-section.js';
import { declareKeys, type Field, type KeyDeclaration } from './declare.js';
import { DOWNSTREAM_KEYS, RETRY_KEYS } from './downstream-section.js';
import { optionalText } from './fields.js';

/** The section of the named downstreams, read whole by `parseDownstreams`. */
export const DOWNSTREAMS_SECTION = 'Gw:Downstreams';
/** Every downstream's keys sit under `Gw:Downstreams:<name>:`. */
const NAMED = `${DOWNSTREAMS_SECTION}:<name>`;

/** A setting the core checks the range of: any finite number here. */
const settingNumber = {
  schema: z
    .string()
    .refine((value) => value.trim() !== '' && Number.isFinite(Number(value)), { error: 'must be a number' })
    .transform(Number),
  type: 'number',
} satisfies Field;

/** Comma-separated operation selectors. */
const selectors = { ...optionalText, type: 'list of selectors' } satisfies Field;

/** A setting one downstream has of its own, starting from the gateway-wide key `of`. */
function overriding(setting: string, of: KeyDeclaration, field: Field, description: string): KeyDeclaration {
  return {
    name: `${NAMED}:${setting}`,
    field,
    defaultIs: `the \`${of.name}\` value, else its default`,
    description: `${description} (as \`${of.name}\`).`,
  };
}

/**
 * `Gw:Downstreams:<name>:*`: one API behind the gateway, named by the user
 * (several may be set, beside the single-key form or instead of it). Read
 * per downstream by `parseDownstreams`, which checks how they go together.
 */
export const DOWNSTREAMS_KEYS = declareKeys({
  baseUrl: {
    name: `${NAMED}:BaseUrl`,
    field: { ...optionalText, type: 'http(s) URL' },
    defaultIs: '— (required)',
    description:
      'A named downstream API (name: 1–32 lower-case letters, digits, `-`). Several may be set, beside the ' +
      'shorthand or instead of it.',
  },
  prefix: {
    name: `${NAMED}:Prefix`,
    field: { ...optionalText, type: 'text' },
    defaultIs: 'none',
    description:
      'Put before each of its tool names with `_` (`orders` → `orders_get_order`); A–Z, a–z, 0–9, `_`, `-`, up to 64.',
  },
  headers: {
    name: `${NAMED}:Headers:<Name>`,
    field: { schema: z.string(), type: 'text' },
    defaultIs: 'none (never `Gw:Downstream:Headers`)',
    description: 'Sent on every call to this downstream only; the same checks as `Gw:Downstream:Headers:<Name>`.',
  },
  timeoutMs: overriding('TimeoutMs', DOWNSTREAM_KEYS.timeoutMs, settingNumber, "This downstream's deadline"),
  retries: overriding('Retries', RETRY_KEYS.retries, settingNumber, "This downstream's retries"),
  retryMinDelayMs: overriding(
    'RetryMinDelayMs',
    RETRY_KEYS.retryMinDelayMs,
    settingNumber,
    "This downstream's shortest backoff",
  ),
  retryMaxDelayMs: overriding(
    'RetryMaxDelayMs',
    RETRY_KEYS.retryMaxDelayMs,
    settingNumber,
    "This downstream's longest backoff",
  ),
  maxResponseBytes: overriding(
    'MaxResponseBytes',
    DOWNSTREAM_KEYS.maxResponseBytes,
    { ...settingNumber, type: 'whole number ≥ 1' },
    "This downstream's longest answer read",
  ),
  audience: {
    name: `${NAMED}:Audience`,
    field: { ...optionalText, type: 'text' },
    defaultIs: 'its `BaseUrl`',
    description: "The audience of the gateway's signed assertions to this downstream.",
  },
  openApi: {
    name: `${NAMED}:OpenApi`,
    field: { ...optionalText, type: 'http(s) URL or file path' },
    defaultIs: 'none (tools from `GET /gw/schema`)',
    description:
      "Where this downstream's OpenAPI document is: an `http(s)` URL or a file path; OpenAPI 3.0 or 3.1, or " +
      'Swagger 2.0 (converted to OpenAPI 3.0 at import; Swagger 1.x is refused), JSON or YAML, at most 32 MiB; ' +
      'external `$ref`s are followed. Its tools come from the document instead of `/gw/schema`. See [Connect an ' +
      'API](../guide/apis.md).',
  },
  operationsInclude: {
    name: `${NAMED}:Operations:Include`,
    field: selectors,
    defaultIs: 'all operations',
    description:
      'Comma list of the operations to import: an operationId (`pulls/list`), a tag (`tag:pulls`), or a method ' +
      'and a path pattern (`GET /repos/*`, `*` = any text, `/` included; `*` as the method = any). Only with ' +
      '`OpenApi`.',
  },
  operationsExclude: {
    name: `${NAMED}:Operations:Exclude`,
    field: selectors,
    defaultIs: 'none',
    description: 'Comma list of selectors (as `Operations:Include`) of operations not to import; it wins over Include.',
  },
  operationsAllowWrite: {
    name: `${NAMED}:Operations:AllowWrite`,
    field: selectors,
    defaultIs: 'none',
    description:
      'Selectors of the POST/PUT/PATCH/DELETE operations that may be called; every other one is imported with ' +
      '`allowWrite: false` and refused like a host-kit tool that says so. Only with `OpenApi`.',
  },
  breakerMode: overriding(
    'Breaker:Mode',
    BREAKER_KEYS.mode,
    { ...optionalText, type: '`consecutive` or `ratio`' },
    "This downstream's own breaker mode",
  ),
  breakerFailureThreshold: overriding(
    'Breaker:FailureThreshold',
    BREAKER_KEYS.failureThreshold,
    settingNumber,
    "This downstream's own breaker",
  ),
  breakerFailureRatio: overriding(
    'Breaker:FailureRatio',
    BREAKER_KEYS.failureRatio,
    settingNumber,
    "This downstream's own breaker",
  ),
  breakerWindowSeconds: overriding(
    'Breaker:WindowSeconds',
    BREAKER_KEYS.windowSeconds,
    settingNumber,
    "This downstream's own breaker",
  ),
  breakerMinimumCalls: overriding(
    'Breaker:MinimumCalls',
    BREAKER_KEYS.minimumCalls,
    settingNumber,
    "This downstream's own breaker",
  ),
  breakerBreakSeconds: overriding(
    'Breaker:BreakSeconds',
    BREAKER_KEYS.breakSeconds,
    settingNumber,
    "This downstream's own breaker",
  ),
});

export type DownstreamSetting = keyof typeof DOWNSTREAMS_KEYS;

/** The settings an unknown one is told of, shortened (the breaker's six in one). */
export const KNOWN_SETTINGS =
  'BaseUrl, Prefix, Headers:<Name>, TimeoutMs, Retries, RetryMinDelayMs, RetryMaxDelayMs, MaxResponseBytes, ' +
  'Audience, OpenApi, Operations:<Include|Exclude|AllowWrite> or Breaker:<Setting>';
