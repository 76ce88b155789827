import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TimedStop } from '../abort/timed-stop.js';
import { NodeHttpPool } from './node-http-pool.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const never = () => new TimedStop(60_000);
const get = (path = '/') => ({ method: 'GET', path, headers: {}, body: null, stop: never() });
const text = async (body: NodeJS.ReadableStream) => {
  let all = '';
  for await (const chunk of body) all += String(chunk);
  return all;
};

describe('NodeHttpPool', () => {
  it('opens at most `connections` sockets; further calls wait for one', async () => {
    let open = 0;
    let most = 0;
    const url = await listen((_req, res) => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => (open--, res.end('ok')), 20);
    });
    const pool = new NodeHttpPool(url, { connections: 2, keepAliveTimeoutMs: 1_000 });
    const answers = await Promise.all(Array.from({ length: 6 }, async () => text((await pool.request(get())).body)));
    expect(answers).toEqual(Array(6).fill('ok'));
    expect(most).toBe(2);
    await pool.close();
  });

  it('sends the method, path, headers and body it is given, with the body length', async () => {
    let seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    const url = await listen(async (req, res) => {
      seen = { method: req.method, url: req.url, headers: req.headers, body: await text(req) };
      res.end();
    });
    const pool = new NodeHttpPool(url, { connections: 1, keepAliveTimeoutMs: 1_000 });
    const response = await pool.request({
      method: 'POST',
      path: '/a?b=1',
      headers: { 'content-type': 'application/json', 'x-one': '1' },
      body: '{"é":1}',
      stop: never(),
    });
    await text(response.body);
    expect(seen).toMatchObject({ method: 'POST', url: '/a?b=1', body: '{"é":1}' });
    expect(seen.headers).toMatchObject({
      'content-type': 'application/json',
      'x-one': '1',
      'content-length': String(Buffer.byteLength('{"é":1}')),
    });
    await pool.close();
  });

  it('stops a call when its stop fires, before or during the answer, with an AbortError', async () => {
    const url = await listen((req, res) => {
      if (req.url === '/silent') return;
      res.writeHead(200);
      res.write('part');
    });
    const pool = new NodeHttpPool(url, { connections: 1, keepAliveTimeoutMs: 1_000 });
    const early = new AbortController();
    early.abort('gone');
    await expect(pool.request({ ...get(), stop: new TimedStop(60_000, early.signal) })).rejects.toMatchObject({
      name: 'AbortError',
      code: 'ABORT_ERR',
      cause: 'gone',
    });
    const late = new AbortController();
    const response = await pool.request({ ...get(), stop: new TimedStop(60_000, late.signal) });
    const reading = text(response.body);
    late.abort();
    await expect(reading).rejects.toThrow();
    // Stopped before the answer began: the request rejects with the AbortError.
    const waiting = new AbortController();
    const call = pool.request({ ...get('/silent'), stop: new TimedStop(60_000, waiting.signal) });
    setTimeout(() => waiting.abort('left'), 20);
    await expect(call).rejects.toMatchObject({ name: 'AbortError', cause: 'left' });
    await pool.close();
  });

  it('closes once its calls in flight have ended, and refuses new ones meanwhile', async () => {
    let answer!: () => void;
    const url = await listen((_req, res) => (answer = () => res.end('late')));
    const pool = new NodeHttpPool(url, { connections: 1, keepAliveTimeoutMs: 1_000 });
    const call = pool.request(get());
    await new Promise((resolve) => setTimeout(resolve, 50));
    let closed = false;
    const closing = pool.close().then(() => (closed = true));
    await expect(pool.request(get())).rejects.toThrow(/closed/);
    expect(closed).toBe(false);
    answer();
    expect(await text((await call).body)).toBe('late');
    await closing;
    expect(closed).toBe(true);
  });

  it('reaches an IPv6 origin, written with brackets in its URL', async (context) => {
    server = createServer((_req, res) => res.end('over v6'));
    const listening = await new Promise<boolean>((resolve) => {
      server!.once('error', () => resolve(false));
      server!.listen(0, '::1', () => resolve(true));
    });
    if (!listening) return context.skip();
    const pool = new NodeHttpPool(`http://[::1]:${(server.address() as AddressInfo).port}`, {
      connections: 1,
      keepAliveTimeoutMs: 1_000,
    });
    expect(await text((await pool.request(get())).body)).toBe('over v6');
    await pool.close();
  });
});
