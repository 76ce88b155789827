import type { ToolDefinition } from '@tollgate/gateway-core';
import { describe, expect, it } from 'vitest';
import { allowlistChoices, groupToolsByCategory, matchesToolFilter, writeGuardOf } from './tool-library.js';

const tool = (name: string, category: string | null, extra: Partial<ToolDefinition> = {}) =>
  ({
    name,
    category,
    description: `${name} tool`,
    httpMethod: 'GET',
    routePattern: `/${name}`,
    requiredScopes: [],
    ...extra,
  }) as ToolDefinition;

describe('tool library', () => {
  it('groups by category in name order, uncategorised (null or blank) last, tools by name', () => {
    const groups = groupToolsByCategory([
      tool('z', null),
      tool('b', 'orders'),
      tool('a', 'orders'),
      tool('c', 'catalog'),
      tool('y', '  '),
    ]);
    expect(groups.map((group) => [group.category, group.tools.map((t) => t.name)])).toEqual([
      ['catalog', ['c']],
      ['orders', ['a', 'b']],
      [null, ['y', 'z']],
    ]);
  });

  it('filters on name, description, category, verb, route and scopes, ignoring case', () => {
    const placeOrder = tool('place_order', 'orders', {
      httpMethod: 'POST',
      routePattern: '/orders',
      requiredScopes: ['orders:write'],
    });
    for (const needle of ['PLACE', 'place_order tool', 'orders', 'post', '/orders', 'orders:write', '  '])
      expect(matchesToolFilter(placeOrder, needle)).toBe(true);
    expect(matchesToolFilter(placeOrder, 'customers')).toBe(false);
  });
});

describe('allowlist choices of the agent form', () => {
  const tools = [{ name: 'orders_get_order' }, { name: 'search' }] as ToolDefinition[];

  it('offers each whole downstream (orders.*) beside the tools when the gateway fronts several', () => {
    expect(allowlistChoices(tools, [{ name: 'orders' }, { name: 'catalog' }])).toEqual([
      'orders.*',
      'catalog.*',
      'orders_get_order',
      'search',
    ]);
  });

  it('offers only the tools in front of one downstream', () => {
    expect(allowlistChoices(tools, [{ name: 'default' }])).toEqual(['orders_get_order', 'search']);
  });
});

describe('the write guard as the tool library shows it (issue 29)', () => {
  it('calls a POST without allowWrite "write, blocked", not read-only', () => {
    expect(writeGuardOf({ httpMethod: 'GET', allowWrite: false })).toBe('read-only');
    expect(writeGuardOf({ httpMethod: 'POST', allowWrite: true })).toBe('writes');
    expect(writeGuardOf({ httpMethod: 'POST', allowWrite: false })).toBe('write-blocked');
    expect(writeGuardOf({ httpMethod: 'DELETE', allowWrite: false })).toBe('write-blocked');
  });
});
