import { describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidInputError, ToolRefusedError } from '../errors.js';
import { authorizeToolCall, toolsForAgent, type ToolCaller } from './access.js';
import { buildToolRegistry } from './registry.js';
import { archiveCustomer, createOrder, deleteCustomer, getCustomer } from '../testing/tool-fixtures.js';

const { registry } = buildToolRegistry([getCustomer, createOrder, deleteCustomer, archiveCustomer]);

function listed(caller: ToolCaller): string[] {
  return toolsForAgent(registry, caller).map((tool) => tool.definition.name);
}

function callable(caller: ToolCaller): string[] {
  return registry.list().flatMap((tool) => {
    try {
      authorizeToolCall(registry, tool.definition.name, caller);
      return [tool.definition.name];
    } catch (error) {
      expect(error).toBeInstanceOf(ForbiddenError);
      return [];
    }
  });
}

describe('toolsForAgent and authorizeToolCall', () => {
  it('let an agent without allowlist call every tool whose scopes its token has', () => {
    expect(listed({ allowedTools: null, agentScopes: [], tokenScopes: [] })).toEqual(['getCustomer', 'deleteCustomer']);
    expect(listed({ allowedTools: [], agentScopes: ['orders:write'], tokenScopes: ['orders:write'] })).toEqual(['getCustomer', 'createOrder', 'deleteCustomer']);
  });

  it('restrict an agent to its allowlist', () => {
    expect(listed({ allowedTools: ['createOrder'], agentScopes: ['orders:write'], tokenScopes: ['orders:write'] })).toEqual(['createOrder']);
  });

  it('never list a write-blocked tool, because no call to it can succeed', () => {
    expect(listed({ allowedTools: ['archiveCustomer'], agentScopes: [], tokenScopes: [] })).toEqual([]);
    expect(() => authorizeToolCall(registry, 'archiveCustomer', { allowedTools: null, agentScopes: [], tokenScopes: [] })).toThrow(
      /would change state \(POST\) and does not allow writes/,
    );
  });

  it('refuse with 403 / -32003 naming the missing scopes', () => {
    try {
      authorizeToolCall(registry, 'createOrder', { allowedTools: null, agentScopes: ['orders:read'], tokenScopes: ['orders:read'] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ForbiddenError);
      expect((error as ForbiddenError).httpStatus).toBe(403);
      expect((error as ForbiddenError).jsonRpcCode).toBe(-32003);
      expect((error as ForbiddenError).message).toMatch(/orders:write/);
    }
  });

  it('refuse a tool outside the allowlist with 403', () => {
    expect(() => authorizeToolCall(registry, 'getCustomer', { allowedTools: ['createOrder'], agentScopes: [], tokenScopes: [] })).toThrow(/not in this agent's allowed tools/);
  });

  it('refuse an unknown or missing tool name with 400 / -32602', () => {
    const caller = { allowedTools: null, agentScopes: [], tokenScopes: [] };
    expect(() => authorizeToolCall(registry, 'nope', caller)).toThrow(InvalidInputError);
    expect(() => authorizeToolCall(registry, 'nope', caller)).toThrow('Unknown tool: "nope"');
    expect(() => authorizeToolCall(registry, 42, caller)).toThrow(/needs the name of a tool/);
  });

  it('agree for every combination of allowlist, agent scopes and token scopes', () => {
    const allowlists = [null, [], ['getCustomer'], ['createOrder', 'deleteCustomer'], ['archiveCustomer', 'unknown']];
    const scopeSets = [[], ['orders:write'], ['orders:read', 'orders:write']];
    for (const allowedTools of allowlists) {
      for (const agentScopes of scopeSets) {
        for (const tokenScopes of scopeSets) {
          const caller = { allowedTools, agentScopes, tokenScopes };
          expect(callable(caller)).toEqual(listed(caller));
          // createOrder needs orders:write: shown exactly when both sides hold it (and the allowlist lets it).
          const both = agentScopes.includes('orders:write') && tokenScopes.includes('orders:write');
          const allowlisted = allowedTools === null || allowedTools.length === 0 || allowedTools.includes('createOrder');
          expect(listed(caller).includes('createOrder')).toBe(both && allowlisted);
        }
      }
    }
  });
});

describe('required scopes: the token and the agent record of this call', () => {
  const refusal = (agentScopes: string[], tokenScopes: string[]): ToolRefusedError => {
    try {
      authorizeToolCall(registry, 'createOrder', { allowedTools: null, agentScopes, tokenScopes });
    } catch (error) {
      expect(error).toBeInstanceOf(ToolRefusedError);
      return error as ToolRefusedError;
    }
    return expect.unreachable('createOrder was authorized');
  };

  it('refuse a scope removed from the agent for a token that still carries it, saying the agent lacks it', () => {
    const error = refusal([], ['orders:write']);
    expect(error).toMatchObject({ httpStatus: 403, jsonRpcCode: -32003, code: 'forbidden' });
    expect(error.message).toBe('Tool createOrder requires scopes the agent does not hold: orders:write');
    expect(error.data).toEqual({ reason: 'missing-scopes', missingScopes: ['orders:write'] });
    expect(listed({ allowedTools: null, agentScopes: [], tokenScopes: ['orders:write'] })).not.toContain('createOrder');
  });

  it('never widen a token with a scope added to the agent after it was issued, saying the token lacks it', () => {
    const error = refusal(['orders:write'], []);
    expect(error.message).toBe('Tool createOrder requires scopes the token does not carry: orders:write');
    expect(error.data).toEqual({ reason: 'missing-scopes', missingScopes: ['orders:write'] });
    expect(listed({ allowedTools: null, agentScopes: ['orders:write'], tokenScopes: [] })).not.toContain('createOrder');
  });

  it('name both sides when neither holds the scope', () => {
    expect(refusal(['orders:read'], ['customers:read']).message).toBe(
      'Tool createOrder requires scopes the token does not carry: orders:write; the agent does not hold: orders:write',
    );
  });

  it('call the tool when both hold it, whatever else either holds', () => {
    const tool = authorizeToolCall(registry, 'createOrder', { allowedTools: null, agentScopes: ['orders:write', 'x'], tokenScopes: ['y', 'orders:write'] });
    expect(tool.definition.name).toBe('createOrder');
  });
});
