import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { withAgentTool } from './endpoint/with-agent-tool.js';
import { mapAgentToolSchema } from './schema-endpoint.js';
import type { ToolDefinition } from './tool-definition.js';

const ok = () => new Response('ok');

afterEach(() => {
  vi.restoreAllMocks();
});

async function schemaOf(app: Hono): Promise<ToolDefinition[]> {
  const res = await app.request('/gw/schema');
  expect(res.status).toBe(200);
  return (await res.json()) as ToolDefinition[];
}

async function errorOf(app: Hono): Promise<{ error: string; message: string }> {
  const res = await app.request('/gw/schema');
  expect(res.status).toBe(500);
  expect(res.headers.get('content-type')).toContain('application/json');
  return (await res.json()) as { error: string; message: string };
}

function mapped(build: (app: Hono) => void): Hono {
  const app = new Hono();
  mapAgentToolSchema(app, { includeMappedEndpoints: true });
  build(app);
  return app;
}

const annotatedTool: ToolDefinition = {
  name: 'GetOrder',
  description: 'Annotated order lookup',
  allowWrite: false,
  maxResponseTokens: 500,
  category: 'orders',
  requiredScopes: ['orders:read'],
  httpMethod: 'GET',
  routePattern: '/orders/{id}',
  parameterSources: { id: 'route' },
  inputSchema: { type: 'object', properties: { id: { type: 'integer', description: null } }, required: ['id'] },
};

describe('GET /gw/schema', () => {
  describe('registration forms', () => {
    const build = (app: Hono) =>
      app.get('/customers', withAgentTool({ name: 'list_customers', description: 'All customers' }), ok);

    it('serves only annotated tools by default', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const app = new Hono();
      mapAgentToolSchema(app, { manifest: { tools: [annotatedTool] } });
      build(app);
      expect((await schemaOf(app)).map((t) => t.name)).toEqual(['GetOrder']);
      expect(warn).toHaveBeenCalledOnce();
    });

    it('serves only annotated tools with includeMappedEndpoints: false, and [] without a manifest', async () => {
      const app = new Hono();
      mapAgentToolSchema(app, { includeMappedEndpoints: false });
      build(app);
      expect(await schemaOf(app)).toEqual([]);
    });

    it('merges annotated and endpoint tools with includeMappedEndpoints: true', async () => {
      const app = new Hono();
      mapAgentToolSchema(app, { includeMappedEndpoints: true, manifest: { tools: [annotatedTool] } });
      build(app);
      expect((await schemaOf(app)).map((t) => t.name)).toEqual(['GetOrder', 'list_customers']);
    });

    it('needs no authentication and returns the app for chaining', async () => {
      const app = new Hono();
      expect(mapAgentToolSchema(app)).toBe(app);
      expect((await app.request('/gw/schema')).status).toBe(200);
    });
  });

  it('serves the full definition with exactly the contract 2.5 fields, sorted by name', async () => {
    const app = mapped((app) => {
      app.post(
        '/orders/:orderId{[0-9]+}/refunds',
        withAgentTool({
          name: 'refund_order',
          description: 'Refund part of an order',
          allowWrite: true,
          maxResponseTokens: 300,
          category: 'orders',
          requiredScopes: ['orders:write'],
          input: {
            route: z.object({ orderId: z.int().describe('Order number') }),
            query: z.object({ notify: z.boolean().optional() }),
            body: z.object({ amount: z.number().describe('Amount in EUR'), reason: z.string().nullable() }),
          },
        }),
        ok,
      );
      app.get('/a-first', withAgentTool({ name: 'a_first', description: 'sorts first' }), ok);
    });
    const tools = await schemaOf(app);
    expect(tools.map((t) => t.name)).toEqual(['a_first', 'refund_order']);
    expect(tools[1]).toStrictEqual({
      name: 'refund_order',
      description: 'Refund part of an order',
      allowWrite: true,
      maxResponseTokens: 300,
      category: 'orders',
      requiredScopes: ['orders:write'],
      httpMethod: 'POST',
      routePattern: '/orders/{orderId}/refunds',
      parameterSources: { orderId: 'route', notify: 'query', amount: 'body', reason: 'body' },
      inputSchema: {
        type: 'object',
        properties: {
          orderId: { type: 'integer', description: 'Order number' },
          notify: { type: 'boolean', description: null },
          amount: { type: 'number', description: 'Amount in EUR' },
          reason: { type: ['string', 'null'], description: null },
        },
        required: ['orderId', 'amount'],
      },
    });
    expect(tools[0]).toMatchObject({
      allowWrite: false,
      maxResponseTokens: 2000,
      category: null,
      requiredScopes: [],
      parameterSources: {},
      inputSchema: { type: 'object', properties: {}, required: [] },
    });
  });

  it.each(['get', 'post', 'put', 'patch', 'delete'] as const)('resolves app.%s to its verb', async (mapper) => {
    const app = mapped((app) => app[mapper]('/things/:id', withAgentTool({ name: 'thing', description: 'd' }), ok));
    expect(await schemaOf(app)).toMatchObject([{ httpMethod: mapper.toUpperCase(), routePattern: '/things/{id}' }]);
  });

  it('resolves app.all and a multi-verb app.on through httpMethod', async () => {
    const app = mapped((app) => {
      app.all('/ping', withAgentTool({ name: 'ping', description: 'd', httpMethod: 'GET' }), ok);
      app.on(
        ['PUT', 'PATCH'],
        '/orders/:id',
        withAgentTool({ name: 'update', description: 'd', httpMethod: 'PATCH' }),
        ok,
      );
    });
    expect(await schemaOf(app)).toMatchObject([
      { name: 'ping', httpMethod: 'GET', routePattern: '/ping' },
      { name: 'update', httpMethod: 'PATCH', routePattern: '/orders/{id}' },
    ]);
  });

  it('resolves a single-verb app.on without httpMethod', async () => {
    const app = mapped((app) =>
      app.on('DELETE', '/orders/:id', withAgentTool({ name: 'cancel', description: 'd' }), ok),
    );
    expect(await schemaOf(app)).toMatchObject([{ httpMethod: 'DELETE' }]);
  });

  it('includes prefixes from app.route, basePath and nested groups, also for sub-apps with onError', async () => {
    const orders = new Hono();
    orders.onError((_err, c) => c.json({ error: 'orders failed' }, 500));
    orders.get('/:id', withAgentTool({ name: 'get_order', description: 'd' }), ok);
    const lines = new Hono().basePath('/lines');
    // Its own onError too: its handlers end up wrapped twice.
    lines.onError((_err, c) => c.json({ error: 'lines failed' }, 500));
    lines.get('/:lineId', withAgentTool({ name: 'get_line', description: 'd' }), ok);
    orders.route('/:id', lines);
    const app = new Hono();
    const api = app.basePath('/api/v1');
    api.route('/orders', orders);
    api.get('/status', withAgentTool({ name: 'status', description: 'd' }), ok);
    mapAgentToolSchema(app, { includeMappedEndpoints: true });
    expect((await schemaOf(app)).map((t) => [t.name, t.routePattern])).toEqual([
      ['get_line', '/api/v1/orders/{id}/lines/{lineId}'],
      ['get_order', '/api/v1/orders/{id}'],
      ['status', '/api/v1/status'],
    ]);
  });

  it('turns constraints, optional segments and named catch-alls into {param}, always required', async () => {
    const app = mapped((app) => {
      app.get('/orders/:id{[0-9]+}', withAgentTool({ name: 'constrained', description: 'd' }), ok);
      app.get('/customers/:id?', withAgentTool({ name: 'optional', description: 'd' }), ok);
      app.get('/files/:path{.+}', withAgentTool({ name: 'catch_all', description: 'd' }), ok);
    });
    const tools = await schemaOf(app);
    expect(tools.map((t) => [t.name, t.routePattern, t.inputSchema.required])).toEqual([
      ['catch_all', '/files/{path}', ['path']],
      ['constrained', '/orders/{id}', ['id']],
      ['optional', '/customers/{id}', ['id']],
    ]);
    expect(tools[0]?.inputSchema.properties.path).toEqual({ type: 'string', description: null });
  });

  it('applies precedence route, query, body on a shared name', async () => {
    const app = mapped((app) =>
      app.put(
        '/orders/:id',
        withAgentTool({
          name: 'replace_order',
          description: 'd',
          input: {
            query: z.object({ id: z.string(), note: z.string().describe('from query') }),
            body: z.object({ id: z.int(), note: z.string(), total: z.number() }),
          },
        }),
        ok,
      ),
    );
    const [tool] = await schemaOf(app);
    expect(tool?.parameterSources).toEqual({ id: 'route', note: 'query', total: 'body' });
    expect(tool?.inputSchema.properties.note?.description).toBe('from query');
  });

  it('makes every body property optional for an optional body', async () => {
    const app = mapped((app) =>
      app.patch(
        '/x',
        withAgentTool({ name: 'x', description: 'd', input: { body: z.object({ a: z.string() }).nullable() } }),
        ok,
      ),
    );
    expect((await schemaOf(app))[0]?.inputSchema.required).toEqual([]);
  });

  it('ignores unmarked endpoints and serves routes registered after mapAgentToolSchema', async () => {
    const app = mapped((app) => {
      app.get('/health', ok);
      app.get('/later', withAgentTool({ name: 'later', description: 'd' }), ok);
    });
    expect((await schemaOf(app)).map((t) => t.name)).toEqual(['later']);
  });

  it('drops an endpoint tool that shares verb and route with an annotated one', async () => {
    const app = new Hono();
    mapAgentToolSchema(app, { includeMappedEndpoints: true, manifest: { tools: [annotatedTool] } });
    app.get('/orders/:id', withAgentTool({ name: 'get_order_endpoint', description: 'd' }), ok);
    app.delete('/orders/:id', withAgentTool({ name: 'delete_order', description: 'd' }), ok);
    expect((await schemaOf(app)).map((t) => t.name)).toEqual(['GetOrder', 'delete_order']);
  });

  describe('misconfiguration: 500 naming the tool, the route and the fix', () => {
    it('for app.all without httpMethod', async () => {
      const app = mapped((app) => app.all('/orders/:id', withAgentTool({ name: 'order_any', description: 'd' }), ok));
      expect(await errorOf(app)).toEqual({
        error: 'agent_tool_misconfigured',
        message:
          'Agent tool "order_any" on ALL /orders/:id: the verb is ambiguous: the endpoint serves every verb (app.all). ' +
          'Fix: pass httpMethod to withAgentTool, one of GET, POST, PUT, PATCH, DELETE.',
        problems: [expect.objectContaining({ tool: 'order_any', route: 'ALL /orders/:id' })],
      });
    });

    it('for a multi-verb app.on without httpMethod', async () => {
      const app = mapped((app) =>
        app.on(['PUT', 'PATCH'], '/o/:id', withAgentTool({ name: 'upd', description: 'd' }), ok),
      );
      expect((await errorOf(app)).message).toBe(
        'Agent tool "upd" on PUT,PATCH /o/:id: the verb is ambiguous: the endpoint serves PUT, PATCH. ' +
          'Fix: pass httpMethod to withAgentTool, one of PUT, PATCH.',
      );
    });

    it('for an httpMethod the endpoint does not serve', async () => {
      const app = mapped((app) =>
        app.get('/o', withAgentTool({ name: 'list', description: 'd', httpMethod: 'POST' }), ok),
      );
      expect((await errorOf(app)).message).toBe(
        'Agent tool "list" on GET /o: httpMethod POST is not a verb the endpoint serves (it serves GET). ' +
          'Fix: set httpMethod to one of GET, or register the route for POST.',
      );
    });

    it('for an unnamed wildcard', async () => {
      const app = mapped((app) => app.get('/files/*', withAgentTool({ name: 'file', description: 'd' }), ok));
      expect((await errorOf(app)).message).toBe(
        'Agent tool "file" on GET /files/*: the route has an unnamed wildcard "*", which an agent cannot fill. ' +
          'Fix: name the segment, e.g. ":path{.+}" instead of "*".',
      );
    });

    it('for one middleware instance on two routes, and for input.route names the route lacks', async () => {
      const shared = withAgentTool({ name: 'shared', description: 'd' });
      const app = mapped((app) => {
        app.get('/a', shared, ok);
        app.get('/b', shared, ok);
        app.get(
          '/c/:id',
          withAgentTool({ name: 'typo', description: 'd', input: { route: z.object({ ID: z.int() }) } }),
          ok,
        );
      });
      const { message } = await errorOf(app);
      expect(message).toContain('Agent tool "shared" on GET /a, /b: one withAgentTool marks more than one route');
      expect(message).toContain('Agent tool "typo" on GET /c/:id: input.route names ID, which the route does not have');
    });

    it('for two tools with one name', async () => {
      const app = mapped((app) => {
        app.get('/a', withAgentTool({ name: 'dup', description: 'd' }), ok);
        app.post('/b', withAgentTool({ name: 'dup', description: 'd' }), ok);
      });
      expect((await errorOf(app)).message).toContain(
        'Agent tool "dup" on GET /a and POST /b: two tools share this name',
      );
    });

    it('only when endpoints are included: the default form serves none of them, misconfigured or not', async () => {
      vi.spyOn(console, 'warn').mockImplementation(() => {});
      const app = new Hono();
      mapAgentToolSchema(app);
      app.all('/x', withAgentTool({ name: 'x', description: 'd' }), ok);
      expect(await schemaOf(app)).toEqual([]);
    });
  });

  describe('the warning about marked routes left out', () => {
    const markTwo = (app: Hono) => {
      app.get('/customers', withAgentTool({ name: 'list_customers', description: 'All customers' }), ok);
      app.route(
        '/v2',
        new Hono().post('/orders', withAgentTool({ name: 'place_order', description: 'Order', allowWrite: true }), ok),
      );
      app.get('/health', ok);
    };

    it('is logged once, on the first request, naming the marked routes and the option, when includeMappedEndpoints is not set', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const app = new Hono();
      mapAgentToolSchema(app, { manifest: { tools: [annotatedTool] } });
      markTwo(app);
      expect(warn).not.toHaveBeenCalled();
      await Promise.all([schemaOf(app), schemaOf(app)]);
      expect((await schemaOf(app)).map((t) => t.name)).toEqual(['GetOrder']);
      expect(warn).toHaveBeenCalledOnce();
      expect(warn).toHaveBeenCalledWith(
        '@tollgate/host-kit: /gw/schema leaves out 2 routes marked with withAgentTool: list_customers (GET /customers), place_order (POST /v2/orders). ' +
          'Pass { includeMappedEndpoints: true } to mapAgentToolSchema to serve them (false to keep them out without this warning).',
      );
    });

    it('is logged once per schema endpoint', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const apps = [new Hono(), new Hono()].map((app) => {
        mapAgentToolSchema(app);
        markTwo(app);
        return app;
      });
      for (const app of [...apps, ...apps]) await schemaOf(app);
      expect(warn).toHaveBeenCalledTimes(2);
    });

    it.each([
      ['includeMappedEndpoints: true', { includeMappedEndpoints: true }, markTwo],
      ['includeMappedEndpoints: false', { includeMappedEndpoints: false }, markTwo],
      ['no marked routes', {}, (app: Hono) => app.get('/customers', ok)],
    ])('is not logged with %s', async (_name, options, build) => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const app = new Hono();
      mapAgentToolSchema(app, options);
      build(app);
      await schemaOf(app);
      expect(warn).not.toHaveBeenCalled();
    });
  });

  describe('walking the routing table', () => {
    function countingWalks(app: Hono): { walks: number } {
      const counter = { walks: 0 };
      const routes = app.routes;
      Object.defineProperty(app, 'routes', {
        get: () => {
          counter.walks++;
          return routes;
        },
      });
      return counter;
    }

    it('walks once under concurrent first requests and caches the result', async () => {
      const app = mapped((app) => app.get('/o', withAgentTool({ name: 'o', description: 'd' }), ok));
      const counter = countingWalks(app);
      expect(counter.walks).toBe(0);
      const responses = await Promise.all(Array.from({ length: 25 }, () => app.request('/gw/schema')));
      expect(responses.map((r) => r.status)).toEqual(Array(25).fill(200));
      const bodies = await Promise.all(responses.map((r) => r.text()));
      expect(new Set(bodies).size).toBe(1);
      await app.request('/gw/schema');
      expect(counter.walks).toBe(1);
    });

    it('walks once for a misconfiguration too, which surfaces only on request', async () => {
      const app = mapped((app) => app.all('/o', withAgentTool({ name: 'o', description: 'd' }), ok));
      const counter = countingWalks(app);
      await Promise.all([app.request('/gw/schema'), app.request('/gw/schema')]);
      expect((await app.request('/gw/schema')).status).toBe(500);
      expect(counter.walks).toBe(1);
    });
  });
});
