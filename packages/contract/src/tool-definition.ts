/**
 * One entry of the JSON array a downstream serves at `GET /gw/schema`
 * (contract 2.5): what host-kit writes (both marking forms produce exactly this
 * shape) and what the gateway reads (it checks it with its own schema and
 * fills the defaults below for fields left out).
 */

/** Where a downstream serves its tool definitions. */
export const SCHEMA_PATH = '/gw/schema';

/** The HTTP methods a tool may be called with. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const satisfies readonly HttpMethod[];

/** Where an input goes in the forwarded request: a `{name}` of the route, the query string, or the JSON body. */
export type ParameterSource = 'route' | 'query' | 'body';
export const PARAMETER_SOURCES = ['route', 'query', 'body'] as const satisfies readonly ParameterSource[];

/** MCP's tool-name rule; names also appear in logs and metrics labels. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** The token ceiling on a tool's response body when its definition sets none. */
export const DEFAULT_MAX_RESPONSE_TOKENS = 2000;

/** JSON Schema of one input. Scalars are `{type, description}`; arrays and
 * nested objects keep their JSON Schema shape (`items`, `properties`, ...). */
export interface InputProperty {
  /** One JSON type, or a nullable one with `null` beside it (`["string", "null"]`). */
  type: string | string[];
  description: string | null;
  [keyword: string]: unknown;
}

/** The tool's inputs: a JSON Schema object, each property one input. */
export interface InputSchema {
  type: 'object';
  properties: Record<string, InputProperty>;
  required: string[];
}

/** One tool as served at `GET /gw/schema`. */
export interface ToolDefinition {
  name: string;
  description: string;
  allowWrite: boolean;
  maxResponseTokens: number;
  category: string | null;
  requiredScopes: string[];
  httpMethod: HttpMethod;
  routePattern: string;
  parameterSources: Record<string, ParameterSource>;
  inputSchema: InputSchema;
  /** Left out unless set: the gateway caches every read tool exactly, and these tools by meaning too. */
  cache?: ToolCacheSettings;
  /** Left out unless true: each call waits for the user's confirmation (gateway write confirmation, MCP 2026-07-28). */
  confirm?: true;
}

/**
 * How the gateway may cache a read tool's answers beyond the exact tier
 * every read tool gets. `semantic: true` (free-text search tools) lets it
 * answer a text from an earlier one of the same meaning; `significantTerms`
 * are words (or groups of synonyms) both texts must mention, or neither,
 * for that: categories, product types, anything a paraphrase never swaps.
 */
export interface ToolCacheSettings {
  semantic: boolean;
  significantTerms: Array<string | string[]>;
}

/** At most this many `significantTerms` (a group of synonyms counts as one). */
export const MAX_SIGNIFICANT_TERMS = 256;
/** At most this many synonyms in one group. */
export const MAX_SYNONYMS = 32;
/** A term is 1 to this many characters once trimmed. */
export const MAX_TERM_LENGTH = 100;
