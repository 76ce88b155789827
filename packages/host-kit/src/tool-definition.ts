/**
 * The wire contract between a downstream API and the gateway: one entry of the
 * JSON array served at `GET /gw/schema` (contract 2.5). Both ways of marking a tool
 * (annotation and endpoint metadata) must produce exactly this shape.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type ParameterSource = 'route' | 'query' | 'body';

/** JSON Schema of one input. Scalars are `{type, description}`; arrays and
 * nested objects keep their JSON Schema shape (`items`, `properties`, ...). */
export interface InputProperty {
  /** One JSON type, or a nullable one with `null` beside it (`["string", "null"]`). */
  type: string | string[];
  description: string | null;
  [keyword: string]: unknown;
}

export interface InputSchema {
  type: 'object';
  properties: Record<string, InputProperty>;
  required: string[];
}

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

/** The MCP tool-name rule; also enforced for annotation-form names. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export const DEFAULT_MAX_RESPONSE_TOKENS = 2000;

/** The settings both marking forms share (contract 4.6); the endpoint form adds a name and inputs. */
export interface AgentToolSettings {
  /** Shown to the agent in the tool manifest. Required, non-empty. */
  description: string;
  /** When false (default) the gateway rejects calls through this tool that would mutate state. */
  allowWrite?: boolean;
  /** Token ceiling on the response body. Default 2000. */
  maxResponseTokens?: number;
  category?: string | null;
  /** Scopes the calling agent's JWT must contain. Copied at registration; later changes have no effect. */
  requiredScopes?: readonly string[] | null;
  /** Needed only when the endpoint does not resolve to exactly one verb; must be a verb it serves. */
  httpMethod?: HttpMethod | Lowercase<HttpMethod> | null;
  /** Opt a free-text read tool into the gateway's semantic cache tier, e.g. `{ semantic: true }`. Default: exact tier only. */
  cache?: { semantic?: boolean; significantTerms?: ReadonlyArray<string | readonly string[]> } | null;
  /**
   * The user confirms each call before the gateway sends it (MCP 2026-07-28 clients with elicitation;
   * clients of earlier revisions are refused the tool's calls). Default false.
   */
  confirm?: boolean;
  /**
   * Inputs a client mirrors into `Mcp-Param-<name>` headers (MCP 2026-07-28 `x-mcp-header`), e.g.
   * `{ region: 'Region' }`: only string, integer or boolean inputs, header names HTTP tokens, unique ignoring case.
   */
  paramHeaders?: Readonly<Record<string, string>> | null;
}
