// The floor of an MCP hop in Node: node:http in front, a keep-alive
// http.Agent to the echo downstream behind, the tools/call answered as one
// SSE `message` event. It does the least a proxy must (read and parse the
// JSON-RPC body, make the downstream request, frame the answer) and no check
// at all: no auth, session, budget, schema, privacy, cap or audit. The
// gateway's CPU per call is judged against this one's (issue 19).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { downstreamClient, readBody, sendEvent, sendJson } from './lib/hop.mjs';

const { fetchText } = downstreamClient(process.env.DOWNSTREAM_URL);

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
