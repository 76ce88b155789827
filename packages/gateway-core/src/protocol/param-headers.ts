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

/** RFC 9110 field-name token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

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
      const mark = (child as Record<string, unknown>)['x-mcp-header'];
      const type = (child as { type?: unknown }).type;
      if (typeof mark === 'string' && TOKEN.test(mark) && !seen.has(mark.toLowerCase()) && (type === 'string' || type === 'integer' || type === 'boolean')) {
        seen.add(mark.toLowerCase());
        found.push({ path: [...path, key], header: `mcp-param-${mark.toLowerCase()}`, type });
      }
      walk(child, [...path, key]);
    }
  };
  walk(schema, []);
  return found;
}

/**
 * Each marked parameter present in the arguments must arrive mirrored in its
 * header, equal after decoding (integers compared as numbers); absent or
 * null, the header must be absent too. HeaderMismatch (400, -32020) otherwise.
 */
export function checkParamHeaders(marks: readonly ParamHeader[], args: unknown, headers: RequestHeaderRecord | undefined): void {
  for (const mark of marks) {
    const value = valueAt(args, mark.path);
    const raw = headers?.[mark.header];
    const header = decodedHeader(mark.header, Array.isArray(raw) ? raw.join(', ') : raw);
    const name = `Mcp-Param-${mark.header.slice('mcp-param-'.length)}`;
    if (value === undefined || value === null) {
      if (header !== undefined) throw new HeaderMismatchError(`${name} header is set but ${mark.path.join('.')} is not in the arguments`);
      continue;
    }
    if (header === undefined) throw new HeaderMismatchError(`${name} header is required: it mirrors ${mark.path.join('.')}`);
    if (!sameValue(header, value)) throw new HeaderMismatchError(`${name} header value ${JSON.stringify(header)} does not match body value ${JSON.stringify(value)}`);
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
