import { resolveResilienceOptions } from '@tollgate/gateway-core';
import { DEFAULT_MAX_RESPONSE_BYTES } from '@tollgate/gateway-core/internal';
import { z } from 'zod';
import { declareKeys, type Field } from './declare.js';
import { httpUrl, optionalText, optionNumber, positiveInt } from './fields.js';

/** The sample downstream's address: development mode's default when no downstream is named. */
export const DEV_DOWNSTREAM = 'http://127.0.0.1:8081';

/** gateway-core's resilience defaults, which apply to the keys left unset. */
const coreDefaults = () => resolveResilienceOptions({});

/**
 * The single-key form of one downstream (`Gw:ToolRegistry:*`,
 * `Gw:Downstream:*`), whose settings named downstreams start from.
 */
export const DOWNSTREAM_KEYS = declareKeys({
  // Required unless Gw:Downstreams names some (checked in parseGatewayConfig); the dev default applies only then.
  baseUrl: {
    name: 'Gw:ToolRegistry:DownstreamBaseUrl',
    field: httpUrl,
    defaultIs: `— (required unless \`Gw:Downstreams\` names some; \`${DEV_DOWNSTREAM}\` in development mode)`,
    description:
      'The downstream API; `GET /gw/schema` is read from it at start-up. The shorthand for one downstream, named ' +
      '`default`, unprefixed, with the `Gw:Downstream:*` settings below; see [Many APIs behind one ' +
      'gateway](../guide/many-downstreams.md).',
  },
  timeoutMs: {
    name: 'Gw:Downstream:TimeoutMs',
    field: optionNumber,
    defaultIs: () => coreDefaults().deadlineMs,
    description:
      'Whole-call deadline for one forwarded request, retries included; positive, may be fractional. It starts ' +
      'once the call holds one of the 128 downstream connections: a call waits for one (agents take turns) at ' +
      'most this long, then is refused as `overloaded` (503 / -32003, `retryAfterSeconds` 1), which the breaker ' +
      'never counts.',
  },
  maxResponseBytes: {
    name: 'Gw:Downstream:MaxResponseBytes',
    field: positiveInt(DEFAULT_MAX_RESPONSE_BYTES),
    description:
      'Longest downstream answer read. Read as it streams and cut at the limit; a `Content-Length` past it is ' +
      'refused before the body is read. Refused as `downstream-error` (reason `response-too-large`, ' +
      '`limitBytes`), not counted by the breaker. Answers over 64 KiB are decoded, privacy-filtered and capped ' +
      'in a worker thread (one on two cores, two from four), so their JSON never holds the event loop; see ' +
      '[behaviour: large answers](behaviour.md#large-answers).',
  },
  audience: {
    name: 'Gw:Downstream:Audience',
    field: optionalText,
    defaultIs: '`Gw:ToolRegistry:DownstreamBaseUrl`',
    description: "The audience of the gateway's signed assertions to the single-key form's downstream.",
  },
});

/** `Gw:Downstream:Retr*`: retries of idempotent calls, gateway-core's options. */
export const RETRY_KEYS = declareKeys({
  retries: {
    name: 'Gw:Downstream:Retries',
    field: optionNumber,
    defaultIs: () => coreDefaults().retry.retries,
    description: 'Extra attempts (0–2) for GET on connection errors and 502/503/504; never for POST/PUT/PATCH/DELETE.',
  },
  retryMinDelayMs: {
    name: 'Gw:Downstream:RetryMinDelayMs',
    field: optionNumber,
    defaultIs: () => coreDefaults().retry.minDelayMs,
    description: 'Jittered backoff between retries: the shortest wait.',
  },
  retryMaxDelayMs: {
    name: 'Gw:Downstream:RetryMaxDelayMs',
    field: optionNumber,
    defaultIs: () => coreDefaults().retry.maxDelayMs,
    description: 'Jittered backoff between retries: the longest wait.',
  },
});

/** `Gw:ToolRegistry:RefreshSeconds`: how often the downstreams' tools are read again. */
export const TOOL_REGISTRY_KEYS = declareKeys({
  refreshSeconds: {
    name: 'Gw:ToolRegistry:RefreshSeconds',
    field: {
      schema: z.coerce.number().int('must be a whole number').min(0, 'must not be negative (0 = off)').default(300),
      type: 'whole number ≥ 0',
    },
    description: 'Re-read `/gw/schema` this often (0 = only at start-up and on `POST /management/tools/refresh`).',
  },
});

/** Sent as written: a header value's spaces are the downstream's business. */
const headerValue = { schema: z.string(), type: 'text' } satisfies Field;

/**
 * `Gw:Downstream:Headers:<Name>`: the single-key form's downstream
 * credentials, read as a whole section and checked by gateway-core.
 */
export const DOWNSTREAM_HEADERS_KEYS = declareKeys({
  header: {
    name: 'Gw:Downstream:Headers:<Name>',
    field: headerValue,
    defaultIs: 'none',
    description:
      "Sent on every forwarded request to the single-key form's downstream (its own authentication). Values " +
      'with CR, LF or NUL refused; `Host`, `Content-Length` and hop-by-hop names refused.',
  },
});
