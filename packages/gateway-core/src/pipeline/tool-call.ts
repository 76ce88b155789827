import { BudgetExhaustedError } from '../errors.js';
import type { Forwarder } from '../forward/forwarder.js';
import { buildToolCallResult, type ToolCallResult } from '../mcp/tool-result.js';
import type { ProtocolVersion } from '../mcp/protocol-version.js';
import type { AgentRecord, BudgetLedger, Reservation } from '../store/ports.js';
import { nextUtcMidnight } from '../time.js';
import { capResponse } from '../tokens/cap.js';
import { authorizeToolCall } from '../tools/access.js';
import { validateToolArguments } from '../tools/arguments.js';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.js';

export interface ToolCallDeps {
  /** The current registry; read per call so a refresh never disturbs calls in flight. */
  registry: () => ToolRegistry;
  budget: BudgetLedger;
  forwarder: Forwarder;
  clock?: () => Date;
}

export interface ToolCallContext {
  agent: AgentRecord;
  /** Scopes of the token presented, not of the agent record (spec 5 rule 6). */
  tokenScopes: readonly string[];
  protocolVersion: ProtocolVersion;
  signal?: AbortSignal;
}

export interface ToolCallParams {
  name: unknown;
  arguments?: unknown;
}

export interface ToolCallOutcome {
  result: ToolCallResult;
  tool: RegisteredTool;
  tokensCharged: number;
  truncated: boolean;
  downstreamStatus: number;
  downstreamMs: number;
}

/**
 * One tools/call after authentication and session checks (DESIGN.md, the
 * pipeline): authorize → validate arguments → reserve budget → forward →
 * cap to what was reserved → settle. Reads top-down; each step throws the
 * typed error of spec 7, and the reservation is released on every failure.
 */
export async function callTool(deps: ToolCallDeps, caller: ToolCallContext, params: ToolCallParams): Promise<ToolCallOutcome> {
  const tool = authorizeToolCall(deps.registry(), params.name, {
    allowedTools: caller.agent.allowedTools,
    tokenScopes: caller.tokenScopes,
  });
  const args = validateToolArguments(tool, params.arguments ?? {});
  const reservation = await reserveBudget(deps, caller.agent, tool.definition.maxResponseTokens);
  try {
    const response = await deps.forwarder.forward(tool.definition, args, caller.signal);
    const capped = capResponse(response.body, reservation.granted);
    await deps.budget.settle(reservation, capped.tokens);
    return {
      result: buildToolCallResult(capped.text, caller.protocolVersion),
      tool,
      tokensCharged: capped.tokens,
      truncated: capped.truncated,
      downstreamStatus: response.status,
      downstreamMs: response.durationMs,
    };
  } catch (error) {
    await deps.budget.release(reservation).catch(() => undefined);
    throw error;
  }
}

/**
 * Holds up to the tool's cap, or whatever is left today when that is less
 * (the response is then cut to fit): an agent is never charged past its budget.
 */
async function reserveBudget(deps: ToolCallDeps, agent: AgentRecord, maxResponseTokens: number): Promise<Reservation> {
  const now = deps.clock?.() ?? new Date();
  const reserved = await deps.budget.reserve(agent.agentId, agent.dailyTokenBudget, maxResponseTokens, now, { minimum: 1 });
  if (!reserved.ok) {
    const resetsAt = nextUtcMidnight(now).toISOString();
    throw new BudgetExhaustedError(`Daily token budget of ${agent.dailyTokenBudget} tokens is exhausted; it resets at ${resetsAt}`, resetsAt);
  }
  return reserved.reservation;
}
