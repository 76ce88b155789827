import { describe, expect, it } from 'vitest';
import { ForbiddenError, InsufficientScopeError, InvalidInputError, ToolRefusedError } from '../errors.js';
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
    expect(listed({ allowedTools: [], agentScopes: ['orders:write'], tokenScopes: ['orders:write'] })).toEqual([
      'getCustomer',
      'createOrder',
      'deleteCustomer',
    ]);
  });

  it('restrict an agent to its allowlist', () => {
    expect(
      listed({ allowedTools: ['createOrder'], agentScopes: ['orders:write'], tokenScopes: ['orders:write'] }),
    ).toEqual(['createOrder']);
  });

  it('never list a write-blocked tool, because no call to it can succeed', () => {
    expect(listed({ allowedTools: ['archiveCustomer'], agentScopes: [], tokenScopes: [] })).toEqual([]);
    expect(() =>
      authorizeToolCall(registry, 'archiveCustomer', { allowedTools: null, agentScopes: [], tokenScopes: [] }),
    ).toThrow(/would change state \(POST\) and does not allow writes/);
  });

  it('refuse with 403 / -32003 naming the missing scopes', () => {
    try {
      authorizeToolCall(registry, 'createOrder', {
        allowedTools: null,
        agentScopes: ['orders:read'],
        tokenScopes: ['orders:read'],
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ForbiddenError);
      expect((error as ForbiddenError).httpStatus).toBe(403);
      expect((error as ForbiddenError).jsonRpcCode).toBe(-32003);
      expect((error as ForbiddenError).message).toMatch(/orders:write/);
    }
  });

  it('refuse a tool outside the allowlist with 403', () => {
    expect(() =>
      authorizeToolCall(registry, 'getCustomer', { allowedTools: ['createOrder'], agentScopes: [], tokenScopes: [] }),
    ).toThrow(/not in this agent's allowed tools/);
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
          const allowlisted =
            allowedTools === null || allowedTools.length === 0 || allowedTools.includes('createOrder');
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
    const tool = authorizeToolCall(registry, 'createOrder', {
      allowedTools: null,
      agentScopes: ['orders:write', 'x'],
      tokenScopes: ['y', 'orders:write'],
    });
    expect(tool.definition.name).toBe('createOrder');
  });
});

describe('OAuth callers (canStepUp): the token narrows the agent, and may be stepped up', () => {
  const refundOrder = { ...createOrder, name: 'refundOrder', requiredScopes: ['orders:write', 'payments:write'] };
  const { registry: oauthRegistry } = buildToolRegistry([getCustomer, createOrder, refundOrder]);
  const oauth = (agentScopes: string[], tokenScopes: string[], allowedTools: string[] | null = null): ToolCaller => ({
    allowedTools,
    agentScopes,
    tokenScopes,
    canStepUp: true,
  });
  const refusalOf = (name: string, caller: ToolCaller): unknown => {
    try {
      authorizeToolCall(oauthRegistry, name, caller);
    } catch (error) {
      return error;
    }
    return expect.unreachable(`${name} was authorized`);
  };
  const listedFor = (caller: ToolCaller) => toolsForAgent(oauthRegistry, caller).map((tool) => tool.definition.name);

  it('call a tool whose scopes both the token and the agent hold', () => {
    expect(
      authorizeToolCall(
        oauthRegistry,
        'refundOrder',
        oauth(['orders:write', 'payments:write'], ['payments:write', 'orders:write']),
      ).definition.name,
    ).toBe('refundOrder');
  });

  it('answer insufficient-scope (403), asking for the token scopes plus the tool ones, when only the token lacks a scope', () => {
    const error = refusalOf(
      'refundOrder',
      oauth(['orders:write', 'payments:write', 'profile'], ['profile', 'orders:write']),
    );
    expect(error).toBeInstanceOf(InsufficientScopeError);
    expect(error).not.toBeInstanceOf(ToolRefusedError);
    const insufficient = error as InsufficientScopeError;
    expect(insufficient).toMatchObject({ code: 'insufficient-scope', httpStatus: 403, jsonRpcCode: -32003 });
    expect(insufficient.scopesToRequest).toEqual(['profile', 'orders:write', 'payments:write']);
    expect(insufficient.data).toEqual({ missingScopes: ['payments:write'] });
    expect(insufficient.message).toMatch(/payments:write/);
    // Asking for exactly those scopes is enough.
    expect(
      authorizeToolCall(
        oauthRegistry,
        'refundOrder',
        oauth(['orders:write', 'payments:write', 'profile'], [...insufficient.scopesToRequest]),
      ).definition.name,
    ).toBe('refundOrder');
  });

  it('refuse as forbidden, in-band, a scope the agent does not hold: no token can fix it', () => {
    for (const tokenScopes of [[], ['payments:write'], ['orders:write', 'payments:write']]) {
      const error = refusalOf('refundOrder', oauth(['orders:write'], tokenScopes));
      expect(error).toBeInstanceOf(ToolRefusedError);
      expect(error).not.toBeInstanceOf(InsufficientScopeError);
      expect(error).toMatchObject({ code: 'forbidden', httpStatus: 403, data: { reason: 'missing-scopes' } });
    }
  });

  it('never let a scope the token carries widen the agent', () => {
    expect(refusalOf('createOrder', oauth([], ['orders:write']))).toBeInstanceOf(ToolRefusedError);
    expect(listedFor(oauth([], ['orders:write']))).toEqual(['getCustomer']);
  });

  it('list the tools the agent scopes allow, also those the token has yet to step up to', () => {
    expect(listedFor(oauth(['orders:write'], []))).toEqual(['getCustomer', 'createOrder']);
    expect(listedFor(oauth(['orders:write', 'payments:write'], ['orders:write']))).toEqual([
      'getCustomer',
      'createOrder',
      'refundOrder',
    ]);
    // A caller that cannot step up (a gateway token) sees only what its token already allows.
    expect(
      toolsForAgent(oauthRegistry, { ...oauth(['orders:write'], []), canStepUp: false }).map(
        (tool) => tool.definition.name,
      ),
    ).toEqual(['getCustomer']);
  });

  it('keep the allowlist ahead of step-up', () => {
    const caller = oauth(['orders:write'], [], ['getCustomer']);
    expect(listedFor(caller)).toEqual(['getCustomer']);
    expect(refusalOf('createOrder', caller)).toMatchObject({ code: 'not-allowlisted' });
  });

  it('agree for every combination: a listed tool is callable, or callable after asking for the scopes named', () => {
    const scopeSets = [[], ['orders:write'], ['payments:write'], ['orders:write', 'payments:write']];
    for (const allowedTools of [null, ['createOrder', 'refundOrder']]) {
      for (const agentScopes of scopeSets) {
        for (const tokenScopes of scopeSets) {
          const caller = oauth(agentScopes, tokenScopes, allowedTools);
          for (const tool of oauthRegistry.list()) {
            const name = tool.definition.name;
            let error: unknown = null;
            try {
              authorizeToolCall(oauthRegistry, name, caller);
            } catch (thrown) {
              error = thrown;
            }
            const shown = listedFor(caller).includes(name);
            if (error instanceof InsufficientScopeError) {
              expect(shown).toBe(true);
              expect(() =>
                authorizeToolCall(oauthRegistry, name, { ...caller, tokenScopes: [...error.scopesToRequest] }),
              ).not.toThrow();
            } else {
              expect(shown).toBe(error === null);
            }
          }
        }
      }
    }
  });
});
