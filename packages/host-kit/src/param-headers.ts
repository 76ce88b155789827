import { PARAM_HEADER_MARK, paramHeaderProblem } from '@tollgate/contract';
import type { InputSchema } from './tool-definition.js';

/**
 * Tool inputs mirrored into HTTP headers (MCP 2026-07-28, `x-mcp-header`):
 * a client sends the input's value again as `Mcp-Param-<name>`, so a load
 * balancer or a gateway can route on it without reading the body. The
 * revision's rules (@tollgate/contract's `paramHeaderProblem`, the gateway's
 * too) are checked here, in both marking forms, so a bad mark fails the build
 * (annotation form) or the schema (endpoint form) rather than costing the tool
 * at the gateway, which refuses such a tool when it loads.
 */

/** Input name -> the `<name>` of its `Mcp-Param-<name>` header. */
export type ParamHeaders = Readonly<Record<string, string>>;

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
 * breaks the revision's rules: an input the tool does not have, or a mark the
 * contract's rule refuses (a header name that is not a token, two names equal
 * but for case, an input whose type is not a single string, integer or boolean).
 */
export function markParamHeaders(
  schema: InputSchema,
  headers: ParamHeaders | null,
): { inputSchema: InputSchema; problem: string | null } {
  if (headers === null) return { inputSchema: schema, problem: null };
  const taken = new Map<string, string>();
  const properties = { ...schema.properties };
  const refused = (input: string, problem: string) => ({
    inputSchema: schema,
    problem: `paramHeaders.${input}: ${problem}`,
  });
  for (const [input, header] of Object.entries(headers)) {
    const property = Object.hasOwn(schema.properties, input) ? schema.properties[input] : undefined;
    if (property === undefined) return refused(input, `the tool has no input "${input}"`);
    const problem = paramHeaderProblem(header, property.type, input, taken);
    if (problem !== null) return refused(input, problem);
    properties[input] = { ...property, [PARAM_HEADER_MARK]: header };
  }
  return { inputSchema: { ...schema, properties }, problem: null };
}
