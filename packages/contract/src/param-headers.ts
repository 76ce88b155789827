/**
 * Tool inputs mirrored into HTTP headers (MCP 2026-07-28): host-kit writes the
 * mark into an input schema, the gateway refuses a tool whose marks break the
 * revision's rules. Both apply the one rule below, with its messages.
 */

/** The JSON Schema keyword that names an input's `Mcp-Param-<name>` header. */
export const PARAM_HEADER_MARK = 'x-mcp-header';

/**
 * The input types the revision lets a client mirror (not `number`: a float does not survive the trip as text exactly).
 */
export type ParamHeaderType = 'string' | 'integer' | 'boolean';

const PARAM_HEADER_TYPES: ReadonlySet<unknown> = new Set<ParamHeaderType>(['string', 'integer', 'boolean']);

/** RFC 9110 field-name token (`1*tchar`): no separators, spaces or control characters. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Why `mark` may not be the `x-mcp-header` of the input at `where`, whose
 * JSON Schema `type` is `type`, or null when it may: the mark must be a
 * non-empty HTTP token, not the mark of another input of the same schema in
 * any case (header names are case-insensitive), and the input a single
 * string, integer or boolean. Where the mark sits in the schema is the
 * caller's to check.
 *
 * `taken` holds the lower-cased marks of the schema seen so far, each with
 * the `where` it was seen at. A mark is added once it is a well-formed name,
 * even when the type is then refused, so a later input repeating it is told
 * it is a twin.
 */
export function paramHeaderProblem(
  mark: unknown,
  type: unknown,
  where: string,
  taken: Map<string, string>,
): string | null {
  if (typeof mark !== 'string' || mark === '') return 'must be a non-empty string';
  if (!HTTP_TOKEN.test(mark))
    return (
      `${JSON.stringify(mark)} is not an HTTP token: a header name takes letters, digits and ` +
      "!#$%&'*+-.^_`|~ only (RFC 9110 field-name characters; no spaces or control characters)"
    );
  const twin = taken.get(mark.toLowerCase());
  if (twin !== undefined) return `${JSON.stringify(mark)} is also the mark of ${twin} (marks are case-insensitive)`;
  taken.set(mark.toLowerCase(), where);
  if (type === 'number')
    return (
      'a number parameter cannot be mirrored into a header (only string, integer or boolean): declare it as an ' +
      'integer'
    );
  if (!PARAM_HEADER_TYPES.has(type))
    return (
      `only a string, integer or boolean parameter can be mirrored into a header, not ` +
      `${JSON.stringify(type ?? null)}`
    );
  return null;
}
