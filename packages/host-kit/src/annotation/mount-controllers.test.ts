import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeProject } from '../analyzer/index.js';
import type { AgentToolManifest } from '../manifest.js';
import { CatalogController, Inventory } from '../../test-fixtures/runtime/catalog.controller.js';
import { Controller } from './decorators.js';
import { mountControllers } from './mount-controllers.js';

const tsconfig = new URL('../../test-fixtures/runtime/tsconfig.json', import.meta.url).pathname;

let manifest: AgentToolManifest;
let app: Hono;

beforeAll(() => {
  const result = analyzeProject({ tsconfig });
  expect(result.diagnostics).toEqual([]);
  manifest = result.manifest;
  app = new Hono();
  mountControllers(app, [new CatalogController()], { manifest, services: { Inventory: new Inventory() } });
}, 30_000);

const json = async (response: Response) => ({
  status: response.status,
  body: (await response.json()) as Record<string, unknown>,
});

describe('mountControllers binding', () => {
  it('binds route params, services, the Hono context and defaults', async () => {
    expect(await json(await app.request('/catalog/items/sku-1'))).toEqual({
      status: 200,
      body: { sku: 'sku-1', stock: 3, verbose: false, path: '/catalog/items/sku-1' },
    });
    expect((await json(await app.request('/catalog/items/sku-1?verbose=true'))).body.verbose).toBe(true);
  });

  it('converts route and query values to their declared types', async () => {
    const response = await app.request(
      '/catalog/pages/2?limit=10&ratio=0.5&since=2024-01-02T00:00:00Z&big=9007199254740993&tag=a&tag=b',
    );
    expect(await json(response)).toEqual({
      status: 200,
      body: {
        page: 2,
        limit: 10,
        ratio: 0.5,
        since: '2024-01-02T00:00:00.000Z',
        big: '9007199254740993',
        tag: ['a', 'b'],
      },
    });
  });

  it.each([
    ['/catalog/pages/two', 'route parameter "page" must be an integer, got "two"'],
    ['/catalog/pages/1?limit=1.5', 'query parameter "limit" must be an integer, got "1.5"'],
    ['/catalog/pages/1?ratio=abc', 'query parameter "ratio" must be a number, got "abc"'],
    ['/catalog/pages/1?since=yesterday', 'query parameter "since" must be a date-time string, got "yesterday"'],
    ['/catalog/items/sku-1?verbose=maybe', 'query parameter "verbose" must be true or false, got "maybe"'],
  ])('answers 400 for %s', async (path, message) => {
    expect(await json(await app.request(path))).toEqual({ status: 400, body: { error: 'invalid_parameter', message } });
  });

  it('binds an object body, converting declared dates, and reads headers', async () => {
    const response = await app.request('/catalog/items/sku-1', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'request-id': 'r-7' },
      body: JSON.stringify({ quantity: 4, arrivesAt: '2024-05-01T10:00:00Z', tags: ['x'] }),
    });
    expect(await json(response)).toEqual({
      status: 200,
      body: { sku: 'sku-1', quantity: 4, arrivesIsDate: true, tags: ['x'], requestId: 'r-7' },
    });
  });

  it.each([
    ['not json', 'request body is not valid JSON'],
    ['', 'request body must be a JSON object'],
    ['[1]', 'request body must be a JSON object'],
    ['{"tags":[]}', 'body property "quantity" is required'],
    ['{"quantity":"4","tags":[]}', 'body property "quantity" must be an integer, got "4"'],
    ['{"quantity":4,"tags":"x"}', 'body property "tags" must be an array, got "x"'],
  ])('answers 400 for the body %j', async (body, message) => {
    const response = await app.request('/catalog/items/sku-1', { method: 'PUT', body });
    expect(await json(response)).toEqual({ status: 400, body: { error: 'invalid_parameter', message } });
  });

  it('binds FromBody scalars from one JSON object and passes a returned Response through', async () => {
    const response = await app.request('/catalog/notes', { method: 'POST', body: JSON.stringify({ text: 'hi' }) });
    expect(await json(response)).toEqual({ status: 201, body: { text: 'hi', pinned: false } });
    const missing = await app.request('/catalog/notes', { method: 'POST', body: '{}' });
    expect(await json(missing)).toEqual({
      status: 400,
      body: { error: 'invalid_parameter', message: 'body property "text" is required' },
    });
  });

  it('answers 204 when the method returns nothing, supplying the abort signal', async () => {
    const response = await app.request('/catalog/items/sku-1', { method: 'DELETE' });
    expect(response.status).toBe(204);
  });

  it('registers only the controllers it is given', async () => {
    expect((await app.request('/ping')).status).toBe(404);
  });
});

describe('mountControllers at startup', () => {
  it('accepts a class and instantiates it', () => {
    const other = new Hono();
    expect(() =>
      mountControllers(other, [CatalogController], { manifest, services: { Inventory: new Inventory() } }),
    ).not.toThrow();
  });

  it('fails when a FromServices value is missing', () => {
    expect(() => mountControllers(new Hono(), [new CatalogController()], { manifest })).toThrow(
      /CatalogController.getItem needs the service "Inventory"/,
    );
  });

  it('fails for a class without @Controller, and one the manifest does not know', () => {
    class Plain {}
    @Controller('/x')
    class Unknown {}
    expect(() => mountControllers(new Hono(), [new Plain()], { manifest })).toThrow(
      /Plain is not decorated with @Controller/,
    );
    expect(() => mountControllers(new Hono(), [new Unknown()], { manifest })).toThrow(
      /Unknown is not in the manifest; run `host-kit build`/,
    );
  });

  it('rejects something that is not a manifest', () => {
    expect(() => mountControllers(new Hono(), [], { manifest: {} as AgentToolManifest })).toThrow(
      /not an agent-tools.json/,
    );
  });
});
