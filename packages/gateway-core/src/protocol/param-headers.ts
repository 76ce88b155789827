import { HTTP_TOKEN as TOKEN, PARAM_HEADER_MARK as MARK, PARAM_HEADER_TYPES } from '@tollgate/contract';
import { HeaderMismatchError } from '../errors.js';
import { decodedHeader, type RequestHeaderRecord } from './envelope.js';

/** One tool parameter a downstream marks with `x-mcp-header`: where it is in the arguments, and its header. */
export interface ParamHeader {
  /** The chain of `properties` keys from the schema root. */
  path: readonly string[];
  /** `Mcp-Param-<name>`, lower-case, as Node keeps request headers. */
  header: string;
  type: 'string' | 'integer' | 'boolean';
}

/**
 * The `x-mcp-header` marks of an input schema, reachable through
 * `properties` only, as MCP 2026-07-28 allows them. Marks it does not allow
 * (a name that is not a token, a duplicate, a non-primitive type) are left
 * out, so a bad mark never makes the gateway demand a header a conforming
 * client would not send.
 */
export function paramHeadersOf(schema: unknown): ParamHeader[] {
  const found: ParamHeader[] = [];
  const seen = new Set<string>();
  const walk = (node: unknown, path: string[]) => {
    const properties = (node as { properties?: unknown } | null)?.properties;
    if (typeof properties !== 'object' || properties === null) return;
    for (const [key, child] of Object.entries(properties as Record<string, unknown>)) {
      if (typeof child !== 'object' || child === null) continue;
      const mark = (child as Record<string, unknown>)[MARK];
      const type = (child as { type?: unknown }).type;
      if (
        typeof mark === 'string' &&
        TOKEN.test(mark) &&
        !seen.has(mark.toLowerCase()) &&
        (type === 'string' || type === 'integer' || type === 'boolean')
      ) {
        seen.add(mark.toLowerCase());
        found.push({ path: [...path, key], header: `mcp-param-${mark.toLowerCase()}`, type });
      }
      walk(child, [...path, key]);
    }
  };
  walk(schema, []);
  return found;
}

const PRIMITIVE_TYPES: ReadonlySet<unknown> = new Set(PARAM_HEADER_TYPES);

/** One `x-mcp-header` mark that MCP 2026-07-28 does not allow: where it is (keys from the schema root), and why. */
export interface ParamHeaderProblem {
  path: readonly string[];
  message: string;
}

/**
 * Every mark of an input schema that breaks the revision's rules: not a
 * string, empty or not an HTTP token, equal to another but for case, on a
 * parameter that is not a single string, integer or boolean, or anywhere but
 * at the end of a chain of `properties` (inside `items`, `oneOf`, `$defs`…).
 * A client must drop such a tool, so the gateway refuses to load it.
 */
export function paramHeaderProblems(schema: unknown): ParamHeaderProblem[] {
  const problems: ParamHeaderProblem[] = [];
  const reachable = new Set<object>();
  const collect = (node: unknown) => {
    const properties = (node as { properties?: unknown } | null)?.properties;
    if (typeof properties !== 'object' || properties === null) return;
    for (const child of Object.values(properties)) {
      if (typeof child !== 'object' || child === null || reachable.has(child)) continue;
      reachable.add(child);
      collect(child);
    }
  };
  collect(schema);
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], depth: number) => {
    // Deeper than any schema host-kit or an importer emits: the
    // walk stops rather than recursing without end on a cycle.
    if (typeof node !== 'object' || node === null || depth > 64) return;
    if (!Array.isArray(node) && Object.hasOwn(node, MARK)) {
      const message = markProblem(node as Record<string, unknown>, reachable.has(node), seen, path.join('.'));
      if (message !== null) problems.push({ path: [...path, MARK], message });
    }
    for (const [key, child] of Object.entries(node)) visit(child, [...path, key], depth + 1);
  };
  visit(schema, [], 0);
  return problems;
}

function markProblem(
  node: Record<string, unknown>,
  reachable: boolean,
  seen: Map<string, string>,
  where: string,
): string | null {
  const mark = node[MARK];
  if (!reachable)
    return (
      'is only allowed on a property reached from the root through properties alone (not items, ' +
      'oneOf/anyOf/allOf/not, if/then/else, $ref or $defs)'
    );
  if (typeof mark !== 'string' || mark === '') return 'must be a non-empty string';
  if (!TOKEN.test(mark))
    return (
      `${JSON.stringify(mark)} is not an HTTP token (RFC 9110 field-name characters, no spaces or control ` +
      `characters)`
    );
  const twin = seen.get(mark.toLowerCase());
  if (twin !== undefined) return `${JSON.stringify(mark)} is also the mark of ${twin} (marks are case-insensitive)`;
  seen.set(mark.toLowerCase(), where);
  if (node.type === 'number')
    return 'a number parameter cannot be mirrored into a header (only string, integer or boolean)';
  if (!PRIMITIVE_TYPES.has(node.type))
    return (
      `only a string, integer or boolean parameter can be mirrored into a header, not ` +
      `${JSON.stringify(node.type ?? null)}`
    );
  return null;
}

/**
 * Each marked parameter present in the arguments must arrive mirrored in its
 * header, equal after decoding (integers compared as numbers); absent or
 * null, the header must be absent too. HeaderMismatch (400, -32020) otherwise.
 */
export function checkParamHeaders(
  marks: readonly ParamHeader[],
  args: unknown,
  headers: RequestHeaderRecord | undefined,
): void {
  for (const mark of marks) {
    const value = valueAt(args, mark.path);
    const raw = headers?.[mark.header];
    const header = decodedHeader(mark.header, Array.isArray(raw) ? raw.join(', ') : raw);
    const name = `Mcp-Param-${mark.header.slice('mcp-param-'.length)}`;
    if (value === undefined || value === null) {
      if (header !== undefined)
        throw new HeaderMismatchError(`${name} header is set but ${mark.path.join('.')} is not in the arguments`);
      continue;
    }
    if (header === undefined)
      throw new HeaderMismatchError(`${name} header is required: it mirrors ${mark.path.join('.')}`);
    if (!sameValue(header, value))
      throw new HeaderMismatchError(
        `${name} header value ${JSON.stringify(header)} does not match body value ${JSON.stringify(value)}`,
      );
  }
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function sameValue(header: string, value: unknown): boolean {
  if (typeof value === 'string') return header === value;
  if (typeof value === 'boolean') return header === String(value);
  if (typeof value === 'number') return header.trim() !== '' && Number(header) === value;
  return false;
}
