/**
 * The wire contract between a downstream API and the gateway (one entry of
 * `GET /gw/schema`, contract 2.5) lives in @tollgate/contract, which the
 * gateway reads too; re-exported here under the names host-kit has always had.
 */
import type { HttpMethod } from '@tollgate/contract';

export type {
  HttpMethod,
  InputProperty,
  InputSchema,
  ParameterSource,
  ToolCacheSettings,
  ToolDefinition,
} from '@tollgate/contract';
export { DEFAULT_MAX_RESPONSE_TOKENS, TOOL_NAME_PATTERN } from '@tollgate/contract';

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
  /**
   * Opt a free-text read tool into the gateway's semantic cache
   * tier, e.g. `{ semantic: true }`. Default: exact tier only.
   */
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
