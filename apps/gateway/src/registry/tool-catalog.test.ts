import { allowlistAllows } from '@tollgate/gateway-core/internal';
import { describe, expect, it } from 'vitest';
import { describeCollision, ToolCatalog } from './tool-catalog.js';

/** A valid definition as a downstream serves it at /gw/schema. */
function tool(name: string, routePattern = `/${name}`) {
  return {
    name,
    description: `The ${name} tool.`,
    httpMethod: 'GET',
    routePattern,
    parameterSources: {},
    inputSchema: { type: 'object', properties: {}, required: [] },
  };
}

const names = (catalog: ToolCatalog) => catalog.definitions().map((definition) => definition.name);

const at = new Date('2030-01-01T00:00:00.000Z');

describe('ToolCatalog with several downstreams', () => {
  const three = () =>
    new ToolCatalog([
      { name: 'orders', prefix: 'orders' },
      { name: 'catalog', prefix: '' },
      { name: 'billing', prefix: 'billing' },
    ]);

  it('serves each downstream under its prefix, carrying its downstream and the name it declared', () => {
    const catalog = three();
    catalog.load('catalog', [tool('search')], at);
    catalog.load('orders', [tool('get_order'), tool('list_orders')], at);
    // Listed downstream by downstream, in configuration order.
    expect(names(catalog)).toEqual(['orders_get_order', 'orders_list_orders', 'search']);
    const getOrder = catalog.registry.get('orders_get_order')!.definition;
    expect(getOrder).toMatchObject({
      name: 'orders_get_order',
      downstream: 'orders',
      declaredName: 'get_order',
      routePattern: '/get_order',
    });
    expect(catalog.registry.get('search')!.definition).toMatchObject({ name: 'search', downstream: 'catalog' });
    expect(catalog.registry.get('search')!.definition.declaredName).toBeUndefined();
    expect(catalog.registry.get('get_order')).toBeUndefined();
  });

  it('is loaded, and serves, as soon as one downstream is; the others are reported on their own', () => {
    const catalog = three();
    expect(catalog.loaded).toBe(false);
    expect(catalog.lastLoad).toBeUndefined();
    catalog.failed('billing', new Error('connect ECONNREFUSED'), at);
    catalog.load('catalog', [tool('search')], at);
    expect(catalog.loaded).toBe(true);
    expect(catalog.lastLoad).toEqual({ tools: ['search'], problems: [], loadedAt: at.toISOString() });
    expect(catalog.downstreams()).toEqual([
      {
        name: 'orders',
        prefix: 'orders',
        loaded: false,
        toolCount: 0,
        loadedAt: null,
        problems: [],
        collisions: [],
        lastError: null,
      },
      {
        name: 'catalog',
        prefix: '',
        loaded: true,
        toolCount: 1,
        loadedAt: at.toISOString(),
        problems: [],
        collisions: [],
        lastError: null,
      },
      {
        name: 'billing',
        prefix: 'billing',
        loaded: false,
        toolCount: 0,
        loadedAt: null,
        problems: [],
        collisions: [],
        lastError: { message: 'connect ECONNREFUSED', at: at.toISOString() },
      },
    ]);
  });

  it("keeps a downstream's tools when a later read fails, and clears the failure on the next good read", () => {
    const catalog = three();
    catalog.load('orders', [tool('get_order')], at);
    catalog.failed('orders', new Error('500'), at);
    expect(names(catalog)).toEqual(['orders_get_order']);
    expect(catalog.downstreams()[0]).toMatchObject({ loaded: true, toolCount: 1, lastError: { message: '500' } });
    catalog.load('orders', [tool('get_order'), tool('cancel_order')], at);
    expect(catalog.downstreams()[0]).toMatchObject({ toolCount: 2, lastError: null });
  });

  it('refuses a name another downstream serves, naming both and the tool; the downstream whose name sorts first serves it', () => {
    const catalog = new ToolCatalog([
      { name: 'legacy', prefix: '' },
      { name: 'catalog', prefix: '' },
    ]);
    const first = catalog.load('legacy', [tool('search', '/v1/search'), tool('report')], at);
    expect(first.collisions).toEqual([]);
    expect(catalog.registry.get('search')!.definition.downstream).toBe('legacy');
    // catalog sorts before legacy: it takes the name as soon as it declares it, whatever was read first,
    // and its load reports the collision it caused (the log names it then).
    const taken = catalog.load('catalog', [tool('search', '/v2/search'), tool('browse')], at);
    expect(taken.collisions).toEqual([{ tool: 'search', servedBy: 'catalog', refused: 'legacy' }]);
    const load = catalog.load('legacy', [tool('search', '/v1/search'), tool('report')], at);
    expect(load.tools).toEqual(['report']);
    expect(load.collisions).toEqual([{ tool: 'search', servedBy: 'catalog', refused: 'legacy' }]);
    expect(describeCollision(load.collisions[0]!)).toBe(
      'tool "search" of downstream legacy refused: downstream catalog already serves a tool of that name (set a Prefix on one of them)',
    );
    expect(catalog.registry.get('search')!.definition).toMatchObject({
      downstream: 'catalog',
      routePattern: '/v2/search',
    });
    expect(
      catalog
        .downstreams()
        .map(({ name, toolCount, collisions }) => ({ name, toolCount, collisions: collisions.length })),
    ).toEqual([
      { name: 'legacy', toolCount: 1, collisions: 1 },
      { name: 'catalog', toolCount: 2, collisions: 0 },
    ]);
    expect(catalog.lastLoad!.problems).toEqual([describeCollision(load.collisions[0]!)]);

    // When the serving downstream drops the tool, the other one's is served...
    catalog.load('catalog', [tool('browse')], at);
    expect(catalog.registry.get('search')!.definition).toMatchObject({
      downstream: 'legacy',
      routePattern: '/v1/search',
    });
    expect(catalog.downstreams().every((downstream) => downstream.collisions.length === 0)).toBe(true);
    // ...and when it brings it back, it serves it again: ownership follows the configuration, not history.
    const back = catalog.load('catalog', [tool('browse'), tool('search', '/v2/search')], at);
    expect(back.collisions).toEqual([{ tool: 'search', servedBy: 'catalog', refused: 'legacy' }]);
    expect(catalog.registry.get('search')!.definition.downstream).toBe('catalog');
  });

  it('gives a contested name to the same downstream on every instance, whatever order their schemas load in (issue 25 finding 3)', () => {
    const config = [
      { name: 'zeta', prefix: '' },
      { name: 'alpha', prefix: '' },
    ];
    const owners = (order: string[]) => {
      const catalog = new ToolCatalog(config);
      for (const name of order) catalog.load(name, [tool('search', `/${name}/search`)], at);
      return {
        owner: catalog.registry.get('search')!.definition.downstream,
        collisions: catalog.downstreams().flatMap((status) => status.collisions),
      };
    };
    const oneWay = owners(['zeta', 'alpha']);
    const otherWay = owners(['alpha', 'zeta']);
    expect(oneWay).toEqual(otherWay);
    expect(oneWay).toEqual({ owner: 'alpha', collisions: [{ tool: 'search', servedBy: 'alpha', refused: 'zeta' }] });
  });

  it('leaves out a tool whose prefixed name would be too long, with the rest of its downstream', () => {
    const catalog = new ToolCatalog([{ name: 'long', prefix: 'p'.repeat(64) }]);
    const load = catalog.load('long', [tool('short'), tool('x'.repeat(70))], at);
    expect(load.tools).toEqual([`${'p'.repeat(64)}_short`]);
    expect(load.problems).toEqual([expect.stringMatching(/longer than 128 characters$/)]);
  });

  it('reports definitions left out per downstream', () => {
    const catalog = three();
    const load = catalog.load('orders', [tool('get_order'), { name: 'broken' }], at);
    expect(load.problems).toEqual([expect.stringMatching(/^tool "broken" \(#1\): /)]);
    expect(catalog.downstreams()[0]!.problems).toHaveLength(1);
  });

  it('lets an allowlist name a whole downstream by the names its tools carry', () => {
    const catalog = three();
    catalog.load('orders', [tool('get_order')], at);
    catalog.load('catalog', [tool('search')], at);
    const allowed = (allowlist: string[]) =>
      catalog
        .definitions()
        .filter((definition) => allowlistAllows(allowlist, definition))
        .map((d) => d.name);
    expect(allowed(['orders.*'])).toEqual(['orders_get_order']);
    expect(allowed(['orders'])).toEqual(['orders_get_order']);
    expect(allowed(['catalog', 'orders_get_order'])).toEqual(['orders_get_order', 'search']);
    expect(allowed(['get_order'])).toEqual([]);
  });

  it('is the single downstream default without a configuration', () => {
    const catalog = new ToolCatalog();
    catalog.load('default', [tool('get_item')], at);
    expect(catalog.registry.get('get_item')!.definition).toMatchObject({ name: 'get_item', downstream: 'default' });
    expect(() => catalog.load('other', [], at)).toThrow(/unknown downstream "other"/);
  });
});
