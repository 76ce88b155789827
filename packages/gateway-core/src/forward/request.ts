import { InvalidArgumentsError } from '../errors.js';
import { ROUTE_PARAMETER, type HttpMethod } from '../tools/definition.js';
import type { QuerySerialization, ToolDefinition } from '../tools/definition.js';

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
 * (percent-encoded), the query string, or the JSON body (under its
 * `bodyNames` name where it has one). `basePath` is the
 * path of the configured downstream base URL (e.g. `/api`), or empty.
 */
export function buildDownstreamRequest(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  basePath = '',
): DownstreamRequest {
  const shape = shapeOf(tool);
  // The route first, then the other sources in order: the first refused value is the one reported, as ever.
  let route = shape.routeLiterals[0]!;
  for (let index = 0; index < shape.routeNames.length; index++) {
    const name = shape.routeNames[index]!;
    route += routeSegment(name, args[name]) + shape.routeLiterals[index + 1]!;
  }
  let query: URLSearchParams | undefined;
  let body: Record<string, unknown> | undefined;
  for (const [name, source] of shape.sources) {
    const value = args[name];
    if (value === undefined || value === null || source === 'route') continue;
    if (source === 'query')
      appendQuery((query ??= new URLSearchParams()), name, value, tool.querySerialization?.[name]);
    else (body ??= {})[tool.bodyNames?.[name] ?? name] = value;
  }
  const search = query !== undefined && query.size > 0 ? `?${query}` : '';
  const base = basePath.endsWith('/') ? basePath.replace(/\/+$/, '') : basePath;
  const request: DownstreamRequest = { method: tool.httpMethod, path: `${base}${route}${search}` };
  if (shape.hasBody) request.body = JSON.stringify(body ?? {});
  return request;
}

/** What a tool's definition says about building its requests, worked out once per definition rather than per call. */
interface RequestShape {
  routePattern: string;
  parameterSources: ToolDefinition['parameterSources'];
  /** The route's text around its placeholders: one more than `routeNames`. */
  routeLiterals: string[];
  routeNames: string[];
  sources: Array<[name: string, source: string]>;
  hasBody: boolean;
}

const shapes = new WeakMap<ToolDefinition, RequestShape>();

function shapeOf(tool: ToolDefinition): RequestShape {
  const known = shapes.get(tool);
  // Checked against the definition's route and sources (by identity):
  // a definition given a new route or sources gets a new shape.
  if (
    known !== undefined &&
    known.routePattern === tool.routePattern &&
    known.parameterSources === tool.parameterSources
  )
    return known;
  const routeLiterals: string[] = [];
  const routeNames: string[] = [];
  let last = 0;
  for (const match of tool.routePattern.matchAll(ROUTE_PARAMETER)) {
    routeLiterals.push(tool.routePattern.slice(last, match.index));
    routeNames.push(match[1]!);
    last = match.index + match[0].length;
  }
  routeLiterals.push(tool.routePattern.slice(last));
  const sources = Object.entries(tool.parameterSources) as Array<[string, string]>;
  const shape: RequestShape = {
    routePattern: tool.routePattern,
    parameterSources: tool.parameterSources,
    routeLiterals,
    routeNames,
    sources,
    hasBody: sources.some(([, source]) => source === 'body'),
  };
  shapes.set(tool, shape);
  return shape;
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
    if (decoded === '' || decoded === '.' || decoded === '..')
      throw refusedRouteValue(name, 'must not be empty, "." or ".."');
    if (decoded.includes('/') || decoded.includes('\\'))
      throw refusedRouteValue(name, 'must not contain / or \\, encoded or not');
    if (CONTROL_CHARACTER.test(decoded))
      throw refusedRouteValue(name, 'must not contain control characters, encoded or not');
    // Without a % there is nothing to decode (decodeURIComponent would return the text as is).
    const next = decoded.includes('%') ? safeDecode(decoded) : decoded;
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
 * Without a serialization, arrays repeat the parameter (`tag=a&tag=b`) and
 * objects travel as JSON text (JSON.stringify writes a lone surrogate as a
 * `\ud800` escape, plain ASCII). With one (from an OpenAPI document), as its
 * `style` and `explode` say. A text with a lone surrogate is refused rather
 * than sent as U+FFFD.
 */
function appendQuery(query: URLSearchParams, name: string, value: unknown, serialization?: QuerySerialization): void {
  const add = (key: string, item: unknown) => {
    const text = typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item);
    if (LONE_SURROGATE.test(text))
      throw new InvalidArgumentsError(`Query value ${name} ${NOT_UNICODE}`, [{ path: name, message: NOT_UNICODE }]);
    query.append(key, text);
  };
  if (serialization === undefined || (Array.isArray(value) && serialization.explode)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined && item !== null) add(name, item);
    return;
  }
  const { style, explode } = serialization;
  if (Array.isArray(value)) {
    const items = value
      .filter((item) => item !== undefined && item !== null)
      .map((item) => (typeof item === 'object' ? JSON.stringify(item) : String(item)));
    if (items.length > 0) add(name, items.join(DELIMITER[style]));
  } else if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined && item !== null);
    if (style === 'deepObject') for (const [key, item] of entries) add(`${name}[${key}]`, item);
    else if (explode) for (const [key, item] of entries) add(key, item);
    else if (entries.length > 0)
      add(
        name,
        entries
          .flat()
          .map((item) => (typeof item === 'object' ? JSON.stringify(item) : String(item)))
          .join(','),
      );
  } else add(name, value);
}

/** What joins an array's items when `explode` is false (OpenAPI's style table). */
const DELIMITER: Record<QuerySerialization['style'], string> = {
  form: ',',
  spaceDelimited: ' ',
  pipeDelimited: '|',
  deepObject: ',',
};
