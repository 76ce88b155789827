import { InsufficientScopeError, ToolRefusedError, UnknownToolError, type ToolRefusal } from '../errors.js';
import { allowlistAllows } from './allowlist.js';
import type { HttpMethod } from './definition.js';
import type { RegisteredTool, ToolRegistry } from './registry.js';

/** Who is calling: the agent's current record (allowlist, scopes) and the scopes of the token presented. */
export interface ToolCaller {
  /** null or empty: every tool (contract 2.1). */
  allowedTools: readonly string[] | null;
  /** The scopes of the agent record read for this call, so a scope removed from the agent stops every token at once. */
  agentScopes: readonly string[];
  /** The scopes copied into the token when it was issued (contract 5 rule 6); adding to the agent never widens it. */
  tokenScopes: readonly string[];
  /**
   * The token is an OAuth issuer's: a scope the agent holds but the token
   * lacks can be asked of the issuer (MCP step-up authorization). Such tools
   * are listed, and a call answers insufficient-scope with the scopes to ask for.
   */
  canStepUp?: boolean;
}

export type ToolAccess =
  | { allowed: true }
  | { allowed: false; reason: ToolRefusal; message: string; missingScopes?: string[]; stepUpScopes?: string[] };

const MUTATING_METHODS: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isMutating(method: HttpMethod): boolean {
  return MUTATING_METHODS.has(method);
}

/**
 * The one rule deciding both what tools/list shows and what tools/call
 * accepts, so the two can never disagree. A tool whose verb changes state but
 * whose definition does not allow writes can never be called by anyone, so
 * it is not listed either.
 */
export function toolAccess(tool: RegisteredTool, caller: ToolCaller): ToolAccess {
  const { name, requiredScopes, allowWrite, httpMethod } = tool.definition;
  const allowlist = caller.allowedTools;
  if (allowlist !== null && allowlist.length > 0 && !allowlistAllows(allowlist, tool.definition)) {
    return { allowed: false, reason: 'not-allowlisted', message: `Tool ${name} is not in this agent's allowed tools` };
  }
  const scopes = scopeCheck(name, requiredScopes, caller);
  if (scopes) return scopes;
  if (isMutating(httpMethod) && !allowWrite) {
    return {
      allowed: false,
      reason: 'write-blocked',
      message: `Tool ${name} would change state (${httpMethod}) and does not allow writes`,
    };
  }
  return { allowed: true };
}

/**
 * Each required scope must be both in the token (contract 5 rule 6) and in
 * the agent's current record: the intersection, so removing a scope from an
 * agent disables it for tokens already issued, and adding one does not widen
 * them. The message says which side lacks it.
 */
function scopeCheck(name: string, requiredScopes: readonly string[], caller: ToolCaller): ToolAccess | null {
  const notInToken = requiredScopes.filter((scope) => !caller.tokenScopes.includes(scope));
  const notInAgent = requiredScopes.filter((scope) => !caller.agentScopes.includes(scope));
  const missing = requiredScopes.filter((scope) => notInToken.includes(scope) || notInAgent.includes(scope));
  if (missing.length === 0) return null;
  if (caller.canStepUp && notInAgent.length === 0) {
    // What the client asks its issuer for replaces its token's scopes, so it keeps those it had.
    const stepUpScopes = [...new Set([...caller.tokenScopes, ...requiredScopes])];
    return {
      allowed: false,
      reason: 'missing-scopes',
      message: `Tool ${name} requires scopes the token does not carry: ${notInToken.join(', ')}`,
      missingScopes: missing,
      stepUpScopes,
    };
  }
  const lacks = [
    notInToken.length > 0 ? `the token does not carry: ${notInToken.join(', ')}` : null,
    notInAgent.length > 0 ? `the agent does not hold: ${notInAgent.join(', ')}` : null,
  ].filter((part) => part !== null);
  return {
    allowed: false,
    reason: 'missing-scopes',
    message: `Tool ${name} requires scopes ${lacks.join('; ')}`,
    missingScopes: missing,
  };
}

/**
 * The tools the caller may call, or may once it has stepped up to the scopes its agent holds: what tools/list shows.
 */
export function toolsForAgent(registry: ToolRegistry, caller: ToolCaller): RegisteredTool[] {
  const listed = caller.canStepUp ? { ...caller, tokenScopes: caller.agentScopes } : caller;
  return registry.list().filter((tool) => toolAccess(tool, listed).allowed);
}

/**
 * The tool a tools/call names, when the caller may call it. An unknown name
 * is 400 / -32602 (a 404 would tell a Streamable HTTP client its session is
 * gone); a refusal is 403 / -32003 with the reason.
 */
export function authorizeToolCall(registry: ToolRegistry, name: unknown, caller: ToolCaller): RegisteredTool {
  return authorizeTool(typeof name === 'string' ? registry.get(name) : undefined, name, caller);
}

/** `authorizeToolCall` for a name already looked up: `tool` is the registry's tool by that name, if it has one. */
export function authorizeTool(tool: RegisteredTool | undefined, name: unknown, caller: ToolCaller): RegisteredTool {
  if (typeof name !== 'string' || name === '') {
    throw new UnknownToolError('tools/call needs the name of a tool', [
      { path: 'name', message: 'must be a non-empty string' },
    ]);
  }
  if (tool === undefined) {
    // JSON.stringify: the name is the caller's input, echoed without letting it shape the message.
    throw new UnknownToolError(`Unknown tool: ${JSON.stringify(name.slice(0, 128))}`, [
      { path: 'name', message: 'no tool has this name' },
    ]);
  }
  const access = toolAccess(tool, caller);
  if (access.allowed) return tool;
  if (access.stepUpScopes)
    throw new InsufficientScopeError(access.message, access.missingScopes ?? [], access.stepUpScopes);
  throw new ToolRefusedError(access.reason, access.message, access.missingScopes);
}
