import { InvalidArgumentsError } from '../errors.js';
import { ROUTE_PARAMETER, type HttpMethod } from '../tools/definition.js';
import type { ToolDefinition } from '../tools/definition.js';

/** What to send downstream for one tool call, before any connection exists. */
export interface DownstreamRequest {
  method: HttpMethod;
  /** Path and query, relative to the downstream origin; never normalized again. */
  path: string;
  /** JSON text; present when the tool has body-sourced inputs. */
  body?: string;
}

/**
 * Places each argument where the tool's parameterSources say: into the route
 * (percent-encoded), the query string, or the JSON body. `basePath` is the
 * path of the configured downstream base URL (e.g. `/api`), or empty.
 */
export function buildDownstreamRequest(tool: ToolDefinition, args: Record<string, unknown>, basePath = ''): DownstreamRequest {
  const route = tool.routePattern.replace(ROUTE_PARAMETER, (_placeholder, name: string) => routeSegment(name, args[name]));
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  let hasBody = false;
  for (const [name, source] of Object.entries(tool.parameterSources)) {
    if (source === 'body') hasBody = true;
    const value = args[name];
    if (value === undefined || value === null || source === 'route') continue;
    if (source === 'query') appendQuery(query, name, value);
    else body[name] = value;
  }
  const search = query.size > 0 ? `?${query}` : '';
  return {
    method: tool.httpMethod,
    path: `${basePath.replace(/\/+$/, '')}${route}${search}`,
    ...(hasBody ? { body: JSON.stringify(body) } : {}),
  };
}

/** How many rounds of percent-decoding a downstream might apply; we check them all. */
const DECODE_ROUNDS = 3;

/** C0 controls and DEL: NUL cuts strings short in many stacks, CR/LF split lines in logs and proxies. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * A lone surrogate (half of a UTF-16 pair; JSON text can spell one as
 * `"\ud800"`): it has no UTF-8 form, so `encodeURIComponent` throws on it and
 * URLSearchParams silently turns it into U+FFFD (another value than the
 * agent sent). With the `u` flag a well-formed pair is one code point and
 * does not match.
 */
const LONE_SURROGATE = /\p{Cs}/u;
const NOT_UNICODE = 'must be well-formed Unicode text (no lone surrogate)';

/**
 * One route value as a path segment. Percent-encoding alone keeps `/` from
 * splitting the segment, but a downstream (or a proxy in front of it) that
 * decodes again would see `..`, a separator or a control character, so any
 * value that is, or decodes to, an empty or dot segment or contains `/`,
 * `\` or a control character is refused.
 */
function routeSegment(name: string, value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw refusedRouteValue(name, 'must be a string, number or boolean');
  }
  const text = String(value);
  if (LONE_SURROGATE.test(text)) throw refusedRouteValue(name, NOT_UNICODE);
  let decoded = text;
  for (let round = 0; round <= DECODE_ROUNDS; round++) {
    if (decoded === '' || decoded === '.' || decoded === '..') throw refusedRouteValue(name, 'must not be empty, "." or ".."');
    if (decoded.includes('/') || decoded.includes('\\')) throw refusedRouteValue(name, 'must not contain / or \\, encoded or not');
    if (CONTROL_CHARACTER.test(decoded)) throw refusedRouteValue(name, 'must not contain control characters, encoded or not');
    const next = safeDecode(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  return encodeURIComponent(text);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // Not valid percent-encoding: nobody downstream can decode it further either.
    return text;
  }
}

function refusedRouteValue(name: string, message: string): InvalidArgumentsError {
  return new InvalidArgumentsError(`Route value ${name} ${message}`, [{ path: name, message }]);
}

/**
 * Arrays repeat the parameter (`tag=a&tag=b`); objects travel as JSON text
 * (JSON.stringify writes a lone surrogate as a `\ud800` escape, plain ASCII).
 * A text with a lone surrogate is refused rather than sent as U+FFFD.
 */
function appendQuery(query: URLSearchParams, name: string, value: unknown): void {
  const values = Array.isArray(value) ? value : [value];
  for (const item of values) {
    if (item === undefined || item === null) continue;
    const text = typeof item === 'object' ? JSON.stringify(item) : String(item);
    if (LONE_SURROGATE.test(text)) throw new InvalidArgumentsError(`Query value ${name} ${NOT_UNICODE}`, [{ path: name, message: NOT_UNICODE }]);
    query.append(name, text);
  }
}
