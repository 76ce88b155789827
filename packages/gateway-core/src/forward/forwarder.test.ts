import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DownstreamCallError, InvalidArgumentsError, InvalidInputError } from '../errors.js';
import { parseToolDefinitions, type ToolDefinition } from '../tools/definition.js';
import { createOrder, getCustomer } from '../testing/tool-fixtures.js';
import { HttpForwarder } from './forwarder.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  remotePort: number | undefined;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let handler: Handler = (_request, response) => response.end();
const forwarders: HttpForwarder[] = [];

beforeAll(async () => {
  server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      body,
      remotePort: request.socket.remotePort,
    });
    handler(request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await Promise.all(forwarders.splice(0).map((forwarder) => forwarder.close()));
  seen = [];
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

function forwarder(options: Partial<ConstructorParameters<typeof HttpForwarder>[0]> = {}): HttpForwarder {
  const created = new HttpForwarder({ baseUrl, ...options });
  forwarders.push(created);
  return created;
}

function tool(definition: unknown): ToolDefinition {
  const { tools, problems } = parseToolDefinitions([definition]);
  expect(problems).toEqual([]);
  return tools[0]!;
}

function json(status: number, value: unknown, headers: Record<string, string> = {}): Handler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(value));
  };
}

async function failure(promise: Promise<unknown>): Promise<DownstreamCallError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DownstreamCallError);
  return error as DownstreamCallError;
}

describe('HttpForwarder', () => {
  it('forwards a GET with the route value encoded and query parameters, and parses the JSON answer', async () => {
    handler = json(200, { id: 'a b?#' }, { 'x-request-id': 'r1' });
    const result = await forwarder().forward(tool(getCustomer), { id: 'a b?#', expand: true });
    expect(seen).toMatchObject([{ method: 'GET', url: '/customers/a%20b%3F%23?expand=true', body: '' }]);
    expect(result).toMatchObject({ status: 200, body: { id: 'a b?#' } });
    expect(result.headers['x-request-id']).toBe('r1');
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('sends body-sourced inputs as JSON, under the base URL path', async () => {
    handler = json(201, { orderId: 'o1' });
    const result = await forwarder({ baseUrl: `${baseUrl}/api/` }).forward(tool(createOrder), {
      customerId: 'c1',
      sku: 'A-1',
      quantity: 2,
      dryRun: false,
    });
    expect(seen).toMatchObject([{ method: 'POST', url: '/api/customers/c1/orders?dryRun=false' }]);
    expect(JSON.parse(seen[0]!.body)).toEqual({ sku: 'A-1', quantity: 2 });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(result).toMatchObject({ status: 201, body: { orderId: 'o1' } });
  });

  it('repeats array query values and sends objects as JSON text', async () => {
    handler = json(200, []);
    const search = tool({
      ...getCustomer,
      name: 'search',
      routePattern: '/customers',
      parameterSources: { tag: 'query', filter: 'query', q: 'query' },
      inputSchema: {
        type: 'object',
        properties: {
          tag: { type: 'array', description: null },
          filter: { type: 'object', description: null },
          q: { type: 'string', description: null },
        },
        required: [],
      },
    });
    await forwarder().forward(search, { tag: ['a', 'b&c'], filter: { vip: true } });
    expect(seen[0]!.url).toBe('/customers?tag=a&tag=b%26c&filter=%7B%22vip%22%3Atrue%7D');
  });

  it('sends the configured downstream headers and never an Authorization of its own', async () => {
    handler = json(200, {});
    await forwarder({ headers: { 'X-Api-Key': 'downstream-secret' } }).forward(tool(getCustomer), { id: '1' });
    expect(seen[0]!.headers['x-api-key']).toBe('downstream-secret');
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it.each([
    ['CR/LF in a value', { 'X-Api-Key': 'a\r\nX-Injected: 1' }, /must not contain CR, LF or NUL/],
    ['a bare LF', { 'X-Api-Key': 'a\nb' }, /must not contain CR, LF or NUL/],
    ['an invalid name', { 'X Api': 'a' }, /not a valid header name/],
    ['a framing header', { 'Content-Length': '0' }, /set by the HTTP client/],
    ['Host', { Host: 'evil.example' }, /set by the HTTP client/],
  ])('refuses %s in the configured headers at start-up', (_name, headers, message) => {
    expect(() => new HttpForwarder({ baseUrl, headers })).toThrow(ConfigError);
    expect(() => new HttpForwarder({ baseUrl, headers })).toThrow(message);
  });

  it.each([
    ['..'],
    ['.'],
    [''],
    ['a/b'],
    ['a\\b'],
    ['%2e%2e'],
    ['a%2Fb'],
    ['%252F'],
    ['%5C'],
    ['a\u0000b'],
    ['%00'],
    ['a\r\nb'],
    ['%250d%250a'],
    ['\u007f'],
  ])('refuses the route value %j before anything is sent', async (id) => {
    const attempt = forwarder().forward(tool(getCustomer), { id });
    await expect(attempt).rejects.toThrow(InvalidInputError);
    await expect(attempt).rejects.toMatchObject({ httpStatus: 400, jsonRpcCode: -32602, fields: [{ path: 'id' }] });
    expect(seen).toEqual([]);
  });

  it.each([['\ud800'], ['a\udc00'], ['\udfff\ud800'], ['x\ud83d']])(
    'refuses the route value %j (a lone surrogate, which cannot be percent-encoded) as invalid arguments naming it',
    async (id) => {
      const attempt = forwarder().forward(tool(getCustomer), { id });
      await expect(attempt).rejects.toBeInstanceOf(InvalidArgumentsError);
      await expect(attempt).rejects.toMatchObject({
        jsonRpcCode: -32602,
        fields: [{ path: 'id', message: expect.stringMatching(/lone surrogate/) }],
      });
      await expect(attempt).rejects.toThrow(/Route value id/);
      expect(seen).toEqual([]);
    },
  );

  it('still forwards a well-formed surrogate pair in a route value', async () => {
    handler = json(200, {});
    await forwarder().forward(tool(getCustomer), { id: 'a😀' });
    expect(seen[0]!.url).toBe(`/customers/${encodeURIComponent('a😀')}`);
  });

  it('refuses a lone surrogate in a query value (URLSearchParams would send U+FFFD instead), and sends one in an object or the body as a JSON escape', async () => {
    const search = tool({
      ...getCustomer,
      name: 'search',
      routePattern: '/customers',
      parameterSources: { tag: 'query', filter: 'query' },
      inputSchema: {
        type: 'object',
        properties: { tag: { type: 'array', description: null }, filter: { type: 'object', description: null } },
        required: [],
      },
    });
    for (const args of [{ tag: '\ud800' }, { tag: ['ok', 'b\udc00'] }]) {
      const attempt = forwarder().forward(search, args);
      await expect(attempt).rejects.toBeInstanceOf(InvalidArgumentsError);
      await expect(attempt).rejects.toMatchObject({ jsonRpcCode: -32602, fields: [{ path: 'tag' }] });
    }
    expect(seen).toEqual([]);
    handler = json(200, []);
    await forwarder().forward(search, { filter: { q: '\ud800' } });
    expect(seen[0]!.url).toBe(`/customers?filter=${encodeURIComponent('{"q":"\\ud800"}')}`);
    await forwarder().forward(tool(createOrder), { customerId: 'c1', sku: '\ud800', quantity: 1 });
    expect(seen[1]!.body).toContain('"\\ud800"');
  });

  it('turns a downstream error status into 502 / -32002 with the status as data', async () => {
    handler = json(500, { error: 'internal detail that stays downstream' });
    const error = await failure(forwarder().forward(tool(getCustomer), { id: '1' }));
    expect(error).toMatchObject({
      httpStatus: 502,
      jsonRpcCode: -32002,
      data: { reason: 'status', downstreamStatus: 500 },
    });
    expect(error.message).not.toContain('internal detail');
    handler = json(404, {});
    expect((await failure(forwarder().forward(tool(getCustomer), { id: '2' }))).data).toEqual({
      reason: 'status',
      downstreamStatus: 404,
    });
  });

  it('gives up after the timeout', async () => {
    handler = (_request, response) => setTimeout(() => response.end('{}'), 2_000).unref();
    const started = Date.now();
    const error = await failure(forwarder({ timeoutMs: 150 }).forward(tool(getCustomer), { id: '1' }));
    expect(error.data).toEqual({ reason: 'timeout', timeoutMs: 150 });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('stops when the caller aborts', async () => {
    handler = (_request, response) => setTimeout(() => response.end('{}'), 2_000).unref();
    const controller = new AbortController();
    const call = forwarder().forward(tool(getCustomer), { id: '1' }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect((await failure(call)).data).toEqual({ reason: 'aborted' });
  });

  it('reports a cancel as aborted whatever reason the caller aborts with', async () => {
    handler = (_request, response) => setTimeout(() => response.end('{}'), 2_000).unref();
    const controller = new AbortController();
    const call = forwarder().forward(tool(getCustomer), { id: '1' }, controller.signal);
    setTimeout(() => controller.abort(new Error('client went away')), 50);
    expect((await failure(call)).data).toEqual({ reason: 'aborted' });
  });

  it('reports an unreachable downstream as a network failure', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const error = await failure(
      forwarder({ baseUrl: `http://127.0.0.1:${port}` }).forward(tool(getCustomer), { id: '1' }),
    );
    expect(error.data).toEqual({ reason: 'network', code: 'ECONNREFUSED' });
  });

  it('refuses a response larger than the limit', async () => {
    handler = json(200, { blob: 'x'.repeat(5_000) });
    const error = await failure(forwarder({ maxResponseBytes: 1_000 }).forward(tool(getCustomer), { id: '1' }));
    expect(error.data).toEqual({ reason: 'response-too-large', limitBytes: 1_000 });
  });

  it('refuses a declared Content-Length past the limit without waiting for the body', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '50000' });
      // Then stalls: only the header can tell the forwarder, well before its 10 s timeout.
      response.write('{"blob":"');
    };
    const started = performance.now();
    const error = await failure(forwarder({ maxResponseBytes: 1_000 }).forward(tool(getCustomer), { id: '1' }));
    expect(error.data).toEqual({ reason: 'response-too-large', limitBytes: 1_000 });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('hands an answer above largeAnswerBytes back undecoded, and decodes one within it', async () => {
    const big = JSON.stringify({ blob: 'x'.repeat(5_000) });
    handler = json(200, { blob: 'x'.repeat(5_000) });
    const large = await forwarder({ largeAnswerBytes: 1_000 }).forward(tool(getCustomer), { id: '1' });
    expect(large.body).toBeUndefined();
    expect(large.raw?.bytes.toString()).toBe(big);
    expect(large.raw?.contentType).toMatch(/^application\/json/);
    const small = await forwarder({ largeAnswerBytes: 10_000 }).forward(tool(getCustomer), { id: '1' });
    expect(small).toMatchObject({ body: { blob: 'x'.repeat(5_000) } });
    expect(small.raw).toBeUndefined();
  });

  it('refuses JSON nested deeper than the gateway can serialize', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('['.repeat(100_000) + ']'.repeat(100_000));
    };
    expect((await failure(forwarder().forward(tool(getCustomer), { id: '1' }))).data).toMatchObject({
      reason: 'response-too-deep',
    });
  });

  it('passes text through as a string and an empty body as null', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('plain words');
    };
    expect((await forwarder().forward(tool(getCustomer), { id: '1' })).body).toBe('plain words');
    handler = (_request, response) => {
      response.writeHead(204);
      response.end();
    };
    expect((await forwarder().forward(tool(getCustomer), { id: '1' })).body).toBeNull();
  });

  it('drops hop-by-hop response headers, including those named by Connection', async () => {
    handler = json(
      200,
      {},
      { connection: 'keep-alive, x-hop', 'x-hop': 'private', 'keep-alive': 'timeout=5', 'x-end': 'kept' },
    );
    const { headers } = await forwarder().forward(tool(getCustomer), { id: '1' });
    expect(headers['x-end']).toBe('kept');
    expect(headers).not.toHaveProperty('x-hop');
    expect(headers).not.toHaveProperty('keep-alive');
    expect(headers).not.toHaveProperty('connection');
  });

  it('keeps connections alive: sequential calls do not each open a socket', async () => {
    handler = json(200, {});
    const reused = forwarder();
    for (const id of ['1', '2', '3', '4', '5', '6']) await reused.forward(tool(getCustomer), { id });
    expect(seen).toHaveLength(6);
    // The pool may open a second socket while the first is being returned to it.
    expect(new Set(seen.map((request) => request.remotePort)).size).toBeLessThanOrEqual(2);
  });
});
