import { PARAM_HEADER_MARK as MARK, type ParamHeaderType, paramHeaderProblem } from '@tollgate/contract';
import { HeaderMismatchError } from '../errors.js';
import { decodedHeader, type RequestHeaderRecord } from './envelope.js';

/** One tool parameter a downstream marks with `x-mcp-header`: where it is in the arguments, and its header. */
export interface ParamHeader {
  /** The chain of `properties` keys from the schema root. */
  path: readonly string[];
  /** `Mcp-Param-<name>`, lower-case, as Node keeps request headers. */
  header: string;
  type: ParamHeaderType;
}

/** One `x-mcp-header` mark that MCP 2026-07-28 does not allow: where it is (keys from the schema root), and why. */
export interface ParamHeaderProblem {
  path: readonly string[];
  message: string;
}

/** The `x-mcp-header` marks of an input schema, each either a header the revision allows or a problem. */
export interface ParamHeaderMarks {
  /** The marks allowed, in schema order: the headers a call must mirror. */
  headers: ParamHeader[];
  /** The marks refused: a client drops a tool that has any, so the gateway refuses to load it. */
  problems: ParamHeaderProblem[];
}

const UNREACHABLE =
  'is only allowed on a property reached from the root through properties alone (not items, ' +
  'oneOf/anyOf/allOf/not, if/then/else, $ref or $defs)';

/**
 * Every mark of an input schema, read in one pass that is the only judge of
 * them: a mark is allowed when it sits at the end of a chain of `properties`
 * (not inside `items`, `oneOf`, `$defs`…) and passes the contract's rule
 * (`paramHeaderProblem`: a token, no twin, a string, integer or boolean
 * parameter). The tool's loading reads the problems; its calls read the
 * headers, so a refused mark never makes the gateway demand a header a
 * conforming client would not send.
 */
export function paramHeaderMarks(schema: unknown): ParamHeaderMarks {
  const marks: ParamHeaderMarks = { headers: [], problems: [] };
  const reachable = propertyPaths(schema);
  const taken = new Map<string, string>();
  const visit = (node: unknown, path: string[], depth: number) => {
    // Deeper than any schema host-kit or an importer emits: the
    // walk stops rather than recursing without end on a cycle.
    if (typeof node !== 'object' || node === null || depth > 64) return;
    if (!Array.isArray(node) && Object.hasOwn(node, MARK)) {
      const keys = reachable.get(node);
      if (keys === undefined) marks.problems.push({ path: [...path, MARK], message: UNREACHABLE });
      else judge(node as Record<string, unknown>, path, keys, taken, marks);
    }
    for (const [key, child] of Object.entries(node)) visit(child, [...path, key], depth + 1);
  };
  visit(schema, [], 0);
  return marks;
}

/** A mark on a property reached through `properties`: a header the contract's rule allows, or its problem. */
function judge(
  node: Record<string, unknown>,
  path: readonly string[],
  keys: readonly string[],
  taken: Map<string, string>,
  marks: ParamHeaderMarks,
): void {
  const { [MARK]: mark, type } = node;
  const message = paramHeaderProblem(mark, type, path.join('.'), taken);
  if (message !== null) marks.problems.push({ path: [...path, MARK], message });
  else
    marks.headers.push({
      path: keys,
      header: `mcp-param-${String(mark).toLowerCase()}`,
      type: type as ParamHeaderType,
    });
}

/** Each node reached from the root through `properties` alone, with its chain of property keys. */
function propertyPaths(schema: unknown): Map<object, readonly string[]> {
  const reachable = new Map<object, readonly string[]>();
  const collect = (node: unknown, keys: readonly string[]) => {
    const properties = (node as { properties?: unknown } | null)?.properties;
    if (typeof properties !== 'object' || properties === null) return;
    for (const [key, child] of Object.entries(properties)) {
      if (typeof child !== 'object' || child === null || reachable.has(child)) continue;
      reachable.set(child, [...keys, key]);
      collect(child, [...keys, key]);
    }
  };
  collect(schema, []);
  return reachable;
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
