import { describe, expect, it } from 'vitest';
import { InvalidArgumentsError } from '../errors.js';
import { ROUTE_PARAMETER, type ToolDefinition } from '../tools/definition.js';
import { buildDownstreamRequest, type DownstreamRequest } from './request.js';

/** The request builder as it was before it cached each tool's shape (issue 19), copied: the per-tool shape must change nothing. */
function plainBuild(tool: ToolDefinition, args: Record<string, unknown>, basePath = ''): DownstreamRequest {
  const route = tool.routePattern.replace(ROUTE_PARAMETER, (_placeholder, name: string) =>
    plainRouteSegment(name, args[name]),
  );
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  let hasBody = false;
  for (const [name, source] of Object.entries(tool.parameterSources)) {
    if (source === 'body') hasBody = true;
    const value = args[name];
    if (value === undefined || value === null || source === 'route') continue;
    if (source === 'query') plainAppendQuery(query, name, value);
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
function plainRouteSegment(name: string, value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw plainRefused(name, 'must be a string, number or boolean');
  }
  const text = String(value);
  if (LONE_SURROGATE.test(text)) throw plainRefused(name, NOT_UNICODE);
  let decoded = text;
  for (let round = 0; round <= DECODE_ROUNDS; round++) {
    if (decoded === '' || decoded === '.' || decoded === '..')
      throw plainRefused(name, 'must not be empty, "." or ".."');
    if (decoded.includes('/') || decoded.includes('\\'))
      throw plainRefused(name, 'must not contain / or \\, encoded or not');
    if (CONTROL_CHARACTER.test(decoded))
      throw plainRefused(name, 'must not contain control characters, encoded or not');
    const next = plainSafeDecode(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  return encodeURIComponent(text);
}

function plainSafeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // Not valid percent-encoding: nobody downstream can decode it further either.
    return text;
  }
}

function plainRefused(name: string, message: string): InvalidArgumentsError {
  return new InvalidArgumentsError(`Route value ${name} ${message}`, [{ path: name, message }]);
}

/**
 * Arrays repeat the parameter (`tag=a&tag=b`); objects travel as JSON text
 * (JSON.stringify writes a lone surrogate as a `\ud800` escape, plain ASCII).
 * A text with a lone surrogate is refused rather than sent as U+FFFD.
 */
function plainAppendQuery(query: URLSearchParams, name: string, value: unknown): void {
  const values = Array.isArray(value) ? value : [value];
  for (const item of values) {
    if (item === undefined || item === null) continue;
    const text = typeof item === 'object' ? JSON.stringify(item) : String(item);
    if (LONE_SURROGATE.test(text))
      throw new InvalidArgumentsError(`Query value ${name} ${NOT_UNICODE}`, [{ path: name, message: NOT_UNICODE }]);
    query.append(name, text);
  }
}

function outcome(build: () => DownstreamRequest): DownstreamRequest | string {
  try {
    return build();
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

const VALUES: unknown[] = [
  'a',
  'b c',
  'x/y',
  '%2F',
  '%252e%252e',
  '..',
  '',
  'é',
  '\ud83d\ude00',
  '\ud800',
  '100%',
  '%zz',
  'a\u0000',
  7,
  true,
  null,
  undefined,
  ['p', 'q'],
  [1, null],
  { k: 'v' },
];

function tool(routePattern: string, parameterSources: Record<string, 'route' | 'query' | 'body'>): ToolDefinition {
  return { name: 't', httpMethod: 'POST', routePattern, parameterSources } as unknown as ToolDefinition;
}

describe('buildDownstreamRequest', () => {
  it('builds what the plain way builds, or refuses with the same message, for values of every kind', () => {
    const tools = [
      tool('/items/{id}/parts/{part}', { id: 'route', part: 'route', q: 'query', b: 'body', c: 'body' }),
      tool('/search', { q: 'query', r: 'query' }),
      tool('/{id}', { id: 'route', b: 'body' }),
      tool('/x/', {}),
    ];
    let seed = 7;
    const pick = () => VALUES[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % VALUES.length];
    for (let round = 0; round < 2_000; round++) {
      for (const target of tools) {
        const args: Record<string, unknown> = {};
        for (const name of Object.keys(target.parameterSources)) args[name] = pick();
        for (const base of ['', '/api', '/api//']) {
          expect(outcome(() => buildDownstreamRequest(target, args, base))).toEqual(
            outcome(() => plainBuild(target, args, base)),
          );
        }
      }
    }
  });

  it('follows a definition given a new route in place', () => {
    const target = tool('/a/{id}', { id: 'route' });
    expect(buildDownstreamRequest(target, { id: 1 }).path).toBe('/a/1');
    (target as { routePattern: string }).routePattern = '/b/{id}';
    expect(buildDownstreamRequest(target, { id: 1 }).path).toBe('/b/1');
  });
});
