/**
 * Tool inputs mirrored into HTTP headers (MCP 2026-07-28): host-kit writes the
 * mark into an input schema, the gateway refuses a tool whose marks break the
 * revision's rules.
 */

/** The JSON Schema keyword that names an input's `Mcp-Param-<name>` header. */
export const PARAM_HEADER_MARK = 'x-mcp-header';

/**
 * The input types the revision lets a client mirror (not `number`: a float does not survive the trip as text exactly).
 */
export const PARAM_HEADER_TYPES = ['string', 'integer', 'boolean'] as const;

/** RFC 9110 field-name token (`1*tchar`): no separators, spaces or control characters. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
