// What the bench's own proxies (bare-proxy.mjs, floor-proxy.mjs) share: the
// least an MCP hop in Node does on each side, written once so that the two
// differ only in the work the floor adds.
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';

/** GETs from the downstream at `url` over keep-alive sockets; `fetchText` resolves with the status and the body as text. */
export function downstreamClient(url) {
  const downstream = new URL(url ?? '');
  if (!downstream.host) throw new Error('DOWNSTREAM_URL is required');
  // Enough sockets that 16–32 client connections never queue behind each other.
  const agent = new Agent({ keepAlive: true, maxSockets: 128 });
  const fetchText = (path, headers) =>
    new Promise((resolve, reject) => {
      const req = request({ host: downstream.hostname, port: downstream.port, path, agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  return { origin: downstream.origin, fetchText };
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res, status, message, headers = {}) {
  const body = JSON.stringify(message);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** The answer as one SSE `message` event, as an MCP server streams a tools/call result. */
function sendEvent(res, message) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/**
 * The MCP server side of a bench proxy on PORT: `initialize` answered with a
 * session id, notifications accepted, a tools/call handed to
 * `toolCall(message)`, which resolves with `{ result, after? }`: the result
 * goes out as one SSE event, then `after()` (work that follows the reply) is
 * awaited. Prints `<name> listening on <url>`; on SIGTERM stops, awaits
 * `onStop` and exits.
 */
export function serveMcp(name, toolCall, onStop = async () => {}) {
  const handle = async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/mcp') return sendJson(res, 404, { error: 'not found' });
    const message = JSON.parse(await readBody(req));
    if (message.method === 'initialize') {
      const result = {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name, version: '1.0.0' },
      };
      return sendJson(res, 200, { jsonrpc: '2.0', id: message.id, result }, { 'Mcp-Session-Id': randomUUID() });
    }
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (message.method !== 'tools/call')
      return sendJson(res, 200, {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: 'Method not found' },
      });
    const call = await toolCall(message);
    sendEvent(res, { jsonrpc: '2.0', id: message.id, result: call.result });
    await call.after?.();
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(error?.message ?? error) });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(`${name.replace('-', ' ')} listening on http://127.0.0.1:${server.address().port}\n`);
  });
  process.on('SIGTERM', () => {
    server.close(async () => {
      await onStop();
      process.exit(0);
    });
    server.closeIdleConnections();
  });
}
