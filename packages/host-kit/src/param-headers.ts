import { HTTP_TOKEN as TOKEN, PARAM_HEADER_MARK, PARAM_HEADER_TYPES } from '@tollgate/contract';
import type { InputSchema } from './tool-definition.js';

/**
 * Tool inputs mirrored into HTTP headers (MCP 2026-07-28, `x-mcp-header`):
 * a client sends the input's value again as `Mcp-Param-<name>`, so a load
 * balancer or a gateway can route on it without reading the body. The
 * revision's rules are checked here, in both marking forms, so a bad mark
 * fails the build (annotation form) or the schema (endpoint form) rather than
 * costing the tool at the gateway, which refuses such a tool when it loads.
 */

/** Input name -> the `<name>` of its `Mcp-Param-<name>` header. */
export type ParamHeaders = Readonly<Record<string, string>>;

const PRIMITIVES: ReadonlySet<unknown> = new Set(PARAM_HEADER_TYPES);

/** The `paramHeaders` option's shape: absent or null, none; otherwise an object of header names. */
export function toParamHeaders(value: unknown): { headers: ParamHeaders | null; problem: string | null } {
  if (value === undefined || value === null) return { headers: null, problem: null };
  const entries =
    typeof value === 'object' && !Array.isArray(value) ? Object.entries(value as Record<string, unknown>) : null;
  if (entries === null || !entries.every(([, header]) => typeof header === 'string')) {
    return {
      headers: null,
      problem: 'paramHeaders must be an object mapping input names to header names, e.g. { region: "Region" }',
    };
  }
  return { headers: Object.freeze(Object.fromEntries(entries)) as ParamHeaders, problem: null };
}

/**
 * The input schema with each named input marked `x-mcp-header`, or why a mark
 * breaks the revision's rules: a header name that is not a token, two names
 * equal but for case, an input the tool does not have, or one whose type is
 * not a single string, integer or boolean.
 */
export function markParamHeaders(
  schema: InputSchema,
  headers: ParamHeaders | null,
): { inputSchema: InputSchema; problem: string | null } {
  if (headers === null) return { inputSchema: schema, problem: null };
  const seen = new Map<string, string>();
  const properties = { ...schema.properties };
  for (const [input, header] of Object.entries(headers)) {
    const problem = headerProblem(header) ?? inputProblem(schema, input);
    if (problem !== null) return { inputSchema: schema, problem: `paramHeaders.${input}: ${problem}` };
    const twin = seen.get(header.toLowerCase());
    if (twin !== undefined)
      return {
        inputSchema: schema,
        problem:
          `paramHeaders.${input}: header "${header}" is also given to ` + `${twin} (header names are case-insensitive)`,
      };
    seen.set(header.toLowerCase(), input);
    properties[input] = { ...schema.properties[input]!, [PARAM_HEADER_MARK]: header };
  }
  return { inputSchema: { ...schema, properties }, problem: null };
}

function headerProblem(header: string): string | null {
  if (header === '') return 'the header name must not be empty';
  return TOKEN.test(header)
    ? null
    : `header name "${header}" must be an HTTP token (letters, digits and !#$%&'*+-.^_\`|~; no spaces or control ` +
        `characters)`;
}

function inputProblem(schema: InputSchema, input: string): string | null {
  const property = Object.hasOwn(schema.properties, input) ? schema.properties[input] : undefined;
  if (property === undefined) return `the tool has no input "${input}"`;
  if (property.type === 'number') return 'a number input cannot be mirrored into a header (use an integer)';
  if (!PRIMITIVES.has(property.type))
    return (
      `only a string, integer or boolean input can be mirrored into ` + `a header, not ${JSON.stringify(property.type)}`
    );
  return null;
}
