// Who is asking, in which session, and what they may see: what the MCP service learns before it dispatches.
import type { AgentRecord, ExternalSubject, SessionRecord } from '../store/ports.js';
import type { ProtocolVersion } from '../protocol/protocol-version.js';
import type { ToolCallResult } from '../protocol/tool-result.js';
import { toolsForAgent } from '../tools/access.js';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.js';

/** The authenticated agent behind a request. */
export interface McpCaller {
  agent: AgentRecord;
  tokenScopes: readonly string[];
  /** Set when the token is an OAuth issuer's: the identity, for the audit trail. */
  external?: ExternalSubject;
  signal: AbortSignal | undefined;
  /** A resumable call's: keeps its answer before it is charged (see `ToolCallContext.keepAnswer`). */
  keepAnswer?: (result: ToolCallResult) => Promise<boolean>;
}

export interface McpSession {
  record: SessionRecord;
  /** The version this request speaks: the negotiated one, confirmed by the header. */
  protocolVersion: ProtocolVersion;
}

/** Where a tools/call runs: in a session (2024-11-05 … 2025-11-25), or in none (2026-07-28). */
export interface CallScope {
  sessionId: string | null;
  /** The revision whose result features the pipeline uses. */
  protocolVersion: ProtocolVersion;
}

/**
 * What tools/list shows the caller, and what search_tools may
 * find for it: its agent's allowlist and scopes, and its token's.
 */
export function toolsFor(registry: ToolRegistry, caller: McpCaller): readonly RegisteredTool[] {
  return toolsForAgent(registry, {
    allowedTools: caller.agent.allowedTools,
    agentScopes: caller.agent.scopes,
    tokenScopes: caller.tokenScopes,
    canStepUp: caller.external !== undefined,
  });
}
