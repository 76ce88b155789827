// The floor of an MCP hop in Node: node:http in front, a keep-alive
// http.Agent to the echo downstream behind, the tools/call answered as one
// SSE `message` event. It does the least a proxy must (read and parse the
// JSON-RPC body, make the downstream request, frame the answer) and no check
// at all: no auth, session, budget, schema, privacy, cap or audit. The
// gateway's CPU per call is judged against this one's (issue 19).
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';

const downstream = new URL(process.env.DOWNSTREAM_URL ?? '');
if (!downstream.host) throw new Error('DOWNSTREAM_URL is required');
// Enough sockets that 16–32 client connections never queue behind each other.
const agent = new Agent({ keepAlive: true, maxSockets: 128 });

/** GET <downstream><path>; resolves with the body as text. */
function fetchText(path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: downstream.hostname, port: downstream.port, path, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
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

async function handle(req, res) {
  if (req.method !== 'POST' || req.url !== '/mcp') return sendJson(res, 404, { error: 'not found' });
  const message = JSON.parse(await readBody(req));
  if (message.method === 'initialize') {
    const result = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare-proxy', version: '1.0.0' } };
    return sendJson(res, 200, { jsonrpc: '2.0', id: message.id, result }, { 'Mcp-Session-Id': randomUUID() });
  }
  if (message.id === undefined) {
    res.writeHead(202).end();
    return;
  }
  if (message.method !== 'tools/call') return sendJson(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  const answer = await fetchText(`/items/${encodeURIComponent(message.params.arguments.id)}`);
  const result = answer.status === 200 ? { content: [{ type: 'text', text: answer.text }] } : { isError: true, content: [{ type: 'text', text: `downstream answered ${answer.status}` }] };
  sendEvent(res, { jsonrpc: '2.0', id: message.id, result });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => {
    if (!res.headersSent) sendJson(res, 500, { error: String(error?.message ?? error) });
    else res.destroy();
  });
});
server.keepAliveTimeout = 60_000;

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`bare proxy listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
