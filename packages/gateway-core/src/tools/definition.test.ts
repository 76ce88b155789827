import { describe, expect, it } from 'vitest';
import { describeToolProblem, parseToolDefinitions } from './definition.js';
import { createOrder, getCustomer } from '../testing/tool-fixtures.js';

describe('parseToolDefinitions', () => {
  it('reads valid definitions and fills the spec defaults', () => {
    const minimal = {
      name: 'ping',
      description: 'Answers pong.',
      httpMethod: 'GET',
      routePattern: '/ping',
      parameterSources: {},
      inputSchema: { type: 'object', properties: {}, required: [] },
    };
    const { tools, problems } = parseToolDefinitions([getCustomer, minimal]);
    expect(problems).toEqual([]);
    expect(tools.map((tool) => tool.name)).toEqual(['getCustomer', 'ping']);
    expect(tools[1]).toMatchObject({ allowWrite: false, maxResponseTokens: 2000, category: null, requiredScopes: [] });
  });

  it('accepts requiredScopes: null as no scopes', () => {
    expect(parseToolDefinitions([{ ...getCustomer, requiredScopes: null }]).tools[0]?.requiredScopes).toEqual([]);
  });

  it('leaves out each bad entry with a clear reason and keeps the good ones', () => {
    const { tools, problems } = parseToolDefinitions([
      { ...getCustomer, name: '' },
      createOrder,
      { ...getCustomer, name: 'badVerb', httpMethod: 'FETCH' },
      'not an object',
      { ...getCustomer, name: 'getCustomer' },
      { ...getCustomer },
    ]);
    expect(tools.map((tool) => tool.name)).toEqual(['createOrder', 'getCustomer']);
    expect(problems.map((problem) => [problem.index, problem.name])).toEqual([
      [0, ''],
      [2, 'badVerb'],
      [3, null],
      [5, 'getCustomer'],
    ]);
    expect(describeToolProblem(problems[1]!)).toBe('tool "badVerb" (#2): httpMethod: must be one of GET, POST, PUT, PATCH, DELETE');
    expect(describeToolProblem(problems[3]!)).toBe('tool "getCustomer" (#5): name: another tool already has this name');
  });

  it.each([
    ['an input without a source', { parameterSources: { id: 'route' } }, 'parameterSources: input "expand" has no source'],
    ['a source that is not an input', { parameterSources: { id: 'route', expand: 'query', extra: 'body' } }, '"extra" is not an input'],
    ['a placeholder that is not a route input', { routePattern: '/customers/{expand}/x/{id}' }, 'placeholder {expand} is not a route-sourced input'],
    ['a route input missing from the pattern', { routePattern: '/customers' }, 'route input "id" has no {id} in routePattern'],
    ['a traversal segment in the pattern', { routePattern: '/a/../customers/{id}' }, 'must not contain . or .. segments'],
    ['a query string in the pattern', { routePattern: '/customers/{id}?admin=1' }, 'must be an absolute path'],
    ['a relative pattern', { routePattern: 'customers/{id}' }, 'must be an absolute path'],
    ['an optional route input', { inputSchema: { ...getCustomer.inputSchema, required: [] } }, 'route input "id" must be required'],
    ['a non-object input schema', { inputSchema: { type: 'array', properties: {}, required: [] } }, 'inputSchema.type'],
    ['a zero token cap', { maxResponseTokens: 0 }, 'maxResponseTokens'],
  ])('reports %s', (_name, change, message) => {
    const { tools, problems } = parseToolDefinitions([{ ...getCustomer, ...change }]);
    expect(tools).toEqual([]);
    expect(describeToolProblem(problems[0]!)).toContain(message);
  });

  it('reports a schema that is not an array', () => {
    expect(parseToolDefinitions({ tools: [] }).problems[0]?.issues[0]?.message).toMatch(/JSON array/);
  });
});
