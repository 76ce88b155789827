// What the bench's own proxies (bare-proxy.mjs, floor-proxy.mjs) share: the
// least an MCP hop in Node does on each side, written once so that the two
// differ only in the work the floor adds.
import { Agent, request } from 'node:http';

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

export function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendJson(res, status, message, headers = {}) {
  const body = JSON.stringify(message);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** The answer as one SSE `message` event, as an MCP server streams a tools/call result. */
export function sendEvent(res, message) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}
