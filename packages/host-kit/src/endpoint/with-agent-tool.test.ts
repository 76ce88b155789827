import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentToolOptions } from './agent-tool-options.js';
import { agentToolOf, withAgentTool } from './with-agent-tool.js';

const valid: AgentToolOptions = { name: 'get_order', description: 'One order by id' };

describe('withAgentTool', () => {
  it('passes the request on to the handler unchanged', async () => {
    const app = new Hono();
    app.post('/echo', withAgentTool(valid), async (c) => c.json({ got: await c.req.json(), q: c.req.query('q') }, 201));
    const res = await app.request('/echo?q=1', { method: 'POST', body: JSON.stringify({ a: 1 }) });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ got: { a: 1 }, q: '1' });
  });

  it('carries the metadata with the spec defaults', () => {
    expect(agentToolOf(withAgentTool(valid))).toMatchObject({
      name: 'get_order',
      description: 'One order by id',
      allowWrite: false,
      maxResponseTokens: 2000,
      category: null,
      requiredScopes: [],
      httpMethod: null,
    });
    expect(agentToolOf(() => undefined)).toBeNull();
  });

  it('copies requiredScopes: changing the caller array later has no effect', () => {
    const scopes = ['orders:read'];
    const middleware = withAgentTool({ ...valid, requiredScopes: scopes });
    scopes.push('orders:write');
    scopes[0] = 'changed';
    expect(agentToolOf(middleware)?.requiredScopes).toEqual(['orders:read']);
  });

  it('carries the cache option with its defaults, and refuses a malformed one at registration', () => {
    expect(agentToolOf(withAgentTool(valid))?.cache).toBeNull();
    expect(agentToolOf(withAgentTool({ ...valid, cache: { semantic: true } }))?.cache).toEqual({
      semantic: true,
      significantTerms: [],
    });
    const terms = ['hardware', ['monitor', 'screen']];
    expect(agentToolOf(withAgentTool({ ...valid, cache: { semantic: true, significantTerms: terms } }))?.cache).toEqual(
      { semantic: true, significantTerms: terms },
    );
    expect(() => withAgentTool({ ...valid, cache: { semantic: 'yes' } as never })).toThrow(
      /cache.semantic must be true or false \(tool "get_order"\)/,
    );
    expect(() => withAgentTool({ ...valid, cache: { semantic: true, significantTerms: [' '] } })).toThrow(
      /significantTerms/,
    );
    expect(() => withAgentTool({ ...valid, cache: { semantic: true, ttl: 1 } as never })).toThrow(/unknown field ttl/);
  });

  it('normalises httpMethod to upper case', () => {
    expect(agentToolOf(withAgentTool({ ...valid, httpMethod: 'post' }))?.httpMethod).toBe('POST');
  });

  it.each<[string, Partial<Record<keyof AgentToolOptions, unknown>>, RegExp]>([
    ['an empty name', { name: '' }, /name is required/],
    ['a blank name', { name: '   ' }, /name is required/],
    ['a missing name', { name: undefined }, /name is required/],
    ['a name with a space', { name: 'get order' }, /must match/],
    ['a name of 129 characters', { name: 'a'.repeat(129) }, /must match/],
    ['an empty description', { description: '' }, /description is required/],
    ['a blank description', { description: '\t ' }, /description is required/],
    ['a zero maxResponseTokens', { maxResponseTokens: 0 }, /positive integer/],
    ['a negative maxResponseTokens', { maxResponseTokens: -5 }, /positive integer/],
    ['a fractional maxResponseTokens', { maxResponseTokens: 1.5 }, /positive integer/],
    ['a string allowWrite', { allowWrite: 'yes' }, /allowWrite/],
    ['a non-array requiredScopes', { requiredScopes: 'orders:read' }, /requiredScopes/],
    ['a blank scope', { requiredScopes: ['orders:read', ' '] }, /requiredScopes/],
    ['an unknown httpMethod', { httpMethod: 'FETCH' }, /httpMethod/],
    ['HEAD as httpMethod', { httpMethod: 'HEAD' }, /httpMethod/],
    ['a blank category', { category: '' }, /category/],
    ['a non-zod query', { input: { query: { page: 'number' } } }, /input\.query/],
    ['a zod string as body', { input: { body: z.string() } }, /input\.body/],
    ['a zod array as route', { input: { route: z.array(z.string()) } }, /input\.route/],
  ])('throws a TypeError for %s', (_case, override, message) => {
    const options = { ...valid, ...override } as AgentToolOptions;
    expect(() => withAgentTool(options)).toThrow(TypeError);
    expect(() => withAgentTool(options)).toThrow(message);
  });

  it('accepts the longest allowed name and every allowed character', () => {
    expect(() => withAgentTool({ ...valid, name: 'a'.repeat(128) })).not.toThrow();
    expect(() => withAgentTool({ ...valid, name: 'orders.v2_get-one' })).not.toThrow();
  });
});
