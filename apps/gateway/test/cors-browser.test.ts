/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  collectConsoleErrors,
  launchChromium,
  type Browser,
  type ConsoleErrors,
} from './support/browser.js';
import { createAgentWithToken } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';

/** Two web apps on other origins, served from this machine (Chromium resolves both names to 127.0.0.1). */
const APP_HOST = 'app.test';
const EVIL_HOST = 'evil.test';

/**
 * A browser app's MCP client, as one would write it with fetch (the official
 * SDK's ESM build imports CommonJS packages, ajv among them, that a browser
 * cannot load without a bundler). Streamable HTTP: POST JSON-RPC, read the
 * session id from the response headers, answers as SSE `message` events.
 */
const PAGE_CLIENT = String.raw`
window.mcpClient = (() => {
  let endpoint, token, sessionId, protocolVersion, nextId = 1;
  const headers = () => {
    const h = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    if (token) h.Authorization = 'Bearer ' + token;
    if (sessionId) h['Mcp-Session-Id'] = sessionId;
    if (protocolVersion) h['MCP-Protocol-Version'] = protocolVersion;
    return h;
  };
  // An SSE reply: the message is the data: lines of its last event.
  const parse = (contentType, text) => {
    if (!/^text\/event-stream/.test(contentType)) return text ? JSON.parse(text) : null;
    const events = text.split('\n\n')
      .map((event) => event.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, '')).join('\n'))
      .filter(Boolean);
    return events.length ? JSON.parse(events[events.length - 1]) : null;
  };
  const send = async (method, body) => {
    const response = await fetch(endpoint, { method, headers: headers(), body: body === undefined ? undefined : JSON.stringify(body) });
    const contentType = response.headers.get('Content-Type') || '';
    const text = await response.text();
    return {
      status: response.status,
      contentType,
      sessionId: response.headers.get('Mcp-Session-Id'),
      wwwAuthenticate: response.headers.get('WWW-Authenticate'),
      message: parse(contentType, text),
    };
  };
  return {
    async connect(url, bearer) {
      endpoint = url; token = bearer; sessionId = undefined; protocolVersion = undefined;
      const init = await send('POST', { jsonrpc: '2.0', id: nextId++, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser-page', version: '1.0.0' } } });
      sessionId = init.sessionId || undefined;
      protocolVersion = init.message && init.message.result && init.message.result.protocolVersion;
      const initialized = await send('POST', { jsonrpc: '2.0', method: 'notifications/initialized' });
      return { init, initialized: initialized.status };
    },
    request: (method, params) => send('POST', { jsonrpc: '2.0', id: nextId++, method, params }),
    useToken(bearer) { token = bearer; },
    close: () => send('DELETE'),
  };
})();
`;

const PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A browser MCP client</title><link rel="icon" href="data:,"><script src="/mcp-client.js"></script></head><body><h1>A browser MCP client</h1></body></html>`;

/** The web apps' server: the page and its client script, on whatever host name the browser asked for. */
function startStaticServer(): Promise<Server> {
  const server = createServer((request, response) => {
    const [type, body] =
      request.url === '/mcp-client.js'
        ? ['text/javascript; charset=utf-8', PAGE_CLIENT]
        : ['text/html; charset=utf-8', PAGE];
    response.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface PageReply {
  status: number;
  contentType: string;
  sessionId: string | null;
  wwwAuthenticate: string | null;
  message: any;
}

type PageClient = {
  connect(url: string, token: string): Promise<{ init: PageReply; initialized: number }>;
  request(method: string, params?: unknown): Promise<PageReply>;
  useToken(token: string): void;
  close(): Promise<PageReply>;
};
declare global {
  interface Window {
    mcpClient: PageClient;
  }
}

/**
 * CORS for /mcp in real Chromium: a page on an origin listed in
 * `Gw:Http:AllowedOrigins` uses the built gateway (preflights, reading the
 * session id and refusals' headers), a page on another origin cannot.
 */
describe.runIf(chromiumAvailable('the CORS browser test'))('a browser page on another origin', () => {
  let statics: Server;
  let appOrigin: string;
  let evilOrigin: string;
  let pair: Pair;
  let mcpUrl: string;
  let token: string;
  let browser: Browser;

  beforeAll(async () => {
    statics = await startStaticServer();
    const { port } = statics.address() as AddressInfo;
    appOrigin = `http://${APP_HOST}:${port}`;
    evilOrigin = `http://${EVIL_HOST}:${port}`;
    pair = await startPair({ gateway: { env: { Gw__Http__AllowedOrigins: appOrigin } } });
    mcpUrl = `${pair.url}/mcp`;
    ({ token } = await createAgentWithToken(pair.api, await pair.adminToken(), {
      label: 'browser app',
      dailyTokenBudget: 100_000,
      scopes: ['orders:read'],
    }));
    browser = await launchChromium({ loopbackHosts: [APP_HOST, EVIL_HOST] });
  });
  afterAll(async () => {
    await browser?.close();
    await pair?.stop();
    await new Promise((resolve) => statics?.close(resolve));
  });

  async function openPage(origin: string): Promise<{ page: Page; errors: ConsoleErrors }> {
    const page = await browser.context.newPage();
    const errors = collectConsoleErrors(page);
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'mcpClient' in window);
    return { page, errors };
  }

  it('the gateway answers the preflight of the listed origin: 204 with the methods and headers MCP needs', async () => {
    const response = await fetch(mcpUrl, {
      method: 'OPTIONS',
      headers: {
        Origin: appOrigin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,mcp-session-id,mcp-protocol-version',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(appOrigin);
    expect(response.headers.get('Vary')).toMatch(/\bOrigin\b/);
    expect(response.headers.get('Access-Control-Allow-Methods')).toMatch(/^POST, ?GET, ?DELETE, ?OPTIONS$/);
    expect(response.headers.get('Access-Control-Allow-Headers')).toMatch(
      /^Authorization, ?Content-Type, ?Accept, ?Mcp-Session-Id, ?MCP-Protocol-Version, ?Last-Event-ID, ?Mcp-Method, ?Mcp-Name$/,
    );
    expect(Number(response.headers.get('Access-Control-Max-Age'))).toBeGreaterThan(0);
  });

  it('connects from the listed origin, lists the tools, calls one, reads a refusal, and ends its session', async () => {
    const { page, errors } = await openPage(appOrigin);
    const connected = await page.evaluate(({ url, bearer }) => window.mcpClient.connect(url, bearer), {
      url: mcpUrl,
      bearer: token,
    });
    expect(connected.init.status).toBe(200);
    expect(connected.init.contentType).toMatch(/^text\/event-stream/);
    expect(connected.init.message.result).toMatchObject({
      protocolVersion: expect.any(String),
      serverInfo: { name: expect.any(String) },
    });
    // Readable only because the gateway exposes it: without the session id nothing after initialize works.
    expect(connected.init.sessionId).toMatch(/\S{16,}/);
    expect(connected.initialized).toBe(202);

    const listed = await page.evaluate(() => window.mcpClient.request('tools/list', {}));
    expect(listed.status).toBe(200);
    const names = (listed.message.result.tools as { name: string }[]).map((tool) => tool.name);
    expect(names).toContain('get_order');

    const called = await page.evaluate(() =>
      window.mcpClient.request('tools/call', { name: 'get_order', arguments: { id: 1001 } }),
    );
    expect(called.status).toBe(200);
    expect(called.contentType).toMatch(/^text\/event-stream/);
    expect(called.message.result.isError).toBeFalsy();
    expect(JSON.parse(called.message.result.content[0].text)).toMatchObject({ id: 1001 });
    expect(errors.take()).toEqual([]);

    // A refusal is readable too, its WWW-Authenticate included (exposed on every status).
    const refused = await page.evaluate(() => {
      window.mcpClient.useToken('not-a-token');
      return window.mcpClient.request('tools/list', {});
    });
    expect(refused.status).toBe(401);
    expect(refused.wwwAuthenticate).toMatch(/^Bearer\b/);
    expect(refused.message.error.code).toBe(-32001);
    // Chromium logs every 4xx it loads: that line, and no CORS refusal.
    expect(errors.take()).toEqual([
      `${appOrigin}/: Failed to load resource: the server responded with a status of 401 (Unauthorized) (${mcpUrl})`,
    ]);

    const ended = await page.evaluate((bearer) => {
      window.mcpClient.useToken(bearer);
      return window.mcpClient.close();
    }, token);
    expect(ended.status).toBe(204);
    expect(errors.take()).toEqual([]);
    await page.close();
  });

  it('a page on an origin not listed cannot: its preflight is refused, fetch rejects', async () => {
    const { page, errors } = await openPage(evilOrigin);
    const outcome = await page.evaluate(
      ({ url, bearer }) =>
        window.mcpClient.connect(url, bearer).then(
          () => 'connected',
          (error: unknown) => String(error),
        ),
      { url: mcpUrl, bearer: token },
    );
    expect(outcome).toBe('TypeError: Failed to fetch');
    expect(errors.take().join('\n')).toMatch(new RegExp(`from origin '${evilOrigin}' has been blocked by CORS policy`));
    await page.close();

    // What the browser was told: 403, no Access-Control-Allow-Origin.
    const preflight = await fetch(mcpUrl, {
      method: 'OPTIONS',
      headers: { Origin: evilOrigin, 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.has('Access-Control-Allow-Origin')).toBe(false);
  });
});
