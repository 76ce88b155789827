import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../tool-definition.js';
import { mergeTools } from './merge-tools.js';

function tool(
  name: string,
  httpMethod: ToolDefinition['httpMethod'],
  routePattern: string,
  extra = {},
): ToolDefinition {
  return {
    name,
    description: `${name} tool`,
    allowWrite: false,
    maxResponseTokens: 2000,
    category: null,
    requiredScopes: [],
    httpMethod,
    routePattern,
    parameterSources: {},
    inputSchema: { type: 'object', properties: {}, required: [] },
    ...extra,
  };
}

describe('mergeTools', () => {
  it('sorts by name in code-unit order', () => {
    const { tools } = mergeTools([tool('b', 'GET', '/b')], [tool('a', 'GET', '/a'), tool('B', 'GET', '/B2')]);
    expect(tools.map((t) => t.name)).toEqual(['B', 'a', 'b']);
  });

  it('keeps the annotated tool when both share verb and route, whatever the parameter names', () => {
    const annotated = tool('GetOrder', 'GET', '/orders/{id}');
    const { tools, problems } = mergeTools([annotated], [tool('get_order', 'GET', '/orders/{orderId}')]);
    expect(tools.map((t) => t.name)).toEqual(['GetOrder']);
    expect(problems).toEqual([]);
  });

  it('keeps both when only the verb or only the route differs', () => {
    const { tools } = mergeTools(
      [tool('a', 'GET', '/orders/{id}')],
      [tool('b', 'DELETE', '/orders/{id}'), tool('c', 'GET', '/orders/{id}/lines')],
    );
    expect(tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
  });

  it('reports two remaining tools with one name', () => {
    const { problems } = mergeTools([tool('x', 'GET', '/a')], [tool('x', 'POST', '/b')]);
    expect(problems).toEqual([
      {
        tool: 'x',
        route: 'GET /a and POST /b',
        problem: 'two tools share this name',
        fix: 'give each tool a unique name',
      },
    ]);
  });

  it('serves exactly the contract 2.5 fields', () => {
    const { tools } = mergeTools([tool('a', 'GET', '/a', { bindings: [], source: 'x' })], []);
    expect(Object.keys(tools[0]!).sort()).toEqual(
      [
        'allowWrite',
        'category',
        'description',
        'httpMethod',
        'inputSchema',
        'maxResponseTokens',
        'name',
        'parameterSources',
        'requiredScopes',
        'routePattern',
      ].sort(),
    );
  });
});
