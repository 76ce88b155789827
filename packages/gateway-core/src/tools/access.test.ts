import { describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidInputError } from '../errors.js';
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
    expect(listed({ allowedTools: null, tokenScopes: [] })).toEqual(['getCustomer', 'deleteCustomer']);
    expect(listed({ allowedTools: [], tokenScopes: ['orders:write'] })).toEqual(['getCustomer', 'createOrder', 'deleteCustomer']);
  });

  it('restrict an agent to its allowlist', () => {
    expect(listed({ allowedTools: ['createOrder'], tokenScopes: ['orders:write'] })).toEqual(['createOrder']);
  });

  it('never list a write-blocked tool, because no call to it can succeed', () => {
    expect(listed({ allowedTools: ['archiveCustomer'], tokenScopes: [] })).toEqual([]);
    expect(() => authorizeToolCall(registry, 'archiveCustomer', { allowedTools: null, tokenScopes: [] })).toThrow(
      /would change state \(POST\) and does not allow writes/,
    );
  });

  it('refuse with 403 / -32003 naming the missing scopes', () => {
    try {
      authorizeToolCall(registry, 'createOrder', { allowedTools: null, tokenScopes: ['orders:read'] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ForbiddenError);
      expect((error as ForbiddenError).httpStatus).toBe(403);
      expect((error as ForbiddenError).jsonRpcCode).toBe(-32003);
      expect((error as ForbiddenError).message).toMatch(/orders:write/);
    }
  });

  it('refuse a tool outside the allowlist with 403', () => {
    expect(() => authorizeToolCall(registry, 'getCustomer', { allowedTools: ['createOrder'], tokenScopes: [] })).toThrow(/not in this agent's allowed tools/);
  });

  it('refuse an unknown or missing tool name with 400 / -32602', () => {
    const caller = { allowedTools: null, tokenScopes: [] };
    expect(() => authorizeToolCall(registry, 'nope', caller)).toThrow(InvalidInputError);
    expect(() => authorizeToolCall(registry, 'nope', caller)).toThrow('Unknown tool: "nope"');
    expect(() => authorizeToolCall(registry, 42, caller)).toThrow(/needs the name of a tool/);
  });

  it('agree for every combination of allowlist and scopes', () => {
    const allowlists = [null, [], ['getCustomer'], ['createOrder', 'deleteCustomer'], ['archiveCustomer', 'unknown']];
    const scopeSets = [[], ['orders:write'], ['orders:read', 'orders:write']];
    for (const allowedTools of allowlists) {
      for (const tokenScopes of scopeSets) {
        const caller = { allowedTools, tokenScopes };
        expect(callable(caller)).toEqual(listed(caller));
      }
    }
  });
});
