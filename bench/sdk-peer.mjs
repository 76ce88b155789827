// The baseline peer: the MCP proxy a team would hand-write with the official
// SDK, following its README's "with session management" example — one
// McpServer + StreamableHTTPServerTransport per session, sessions kept in a
// map in memory, the tool forwarding to the downstream with fetch (keep-alive
// by default). No auth, budget, privacy, cap or audit: it is the floor of what
// an MCP hop costs with the SDK, not a feature-equivalent gateway.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const downstream = process.env.DOWNSTREAM_URL;
if (!downstream) throw new Error('DOWNSTREAM_URL is required');

function mcpServer() {
  const server = new McpServer({ name: 'sdk-peer', version: '1.0.0' });
  server.registerTool(
    'get_item',
    { description: 'Fetch one item by id.', inputSchema: { id: z.number().int() } },
    async ({ id }) => {
      const response = await fetch(`${downstream}/items/${encodeURIComponent(id)}`);
      const text = await response.text();
      if (!response.ok)
        return { isError: true, content: [{ type: 'text', text: `downstream answered ${response.status}` }] };
      return { content: [{ type: 'text', text }] };
    },
  );
  return server;
}

/** @type {Map<string, StreamableHTTPServerTransport>} */
const transports = new Map();

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function badRequest(res, message) {
  res.writeHead(400, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

const http = createServer(async (req, res) => {
  if (!req.url?.startsWith('/mcp')) return badRequest(res, 'not found');
  const sessionId = req.headers['mcp-session-id'];
  try {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport && req.method === 'POST' && sessionId === undefined && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await mcpServer().connect(transport);
    }
    if (!transport) return badRequest(res, 'Bad Request: no valid session ID provided');
    await transport.handleRequest(req, res, body);
  } catch (error) {
    if (!res.headersSent) badRequest(res, `Bad Request: ${error.message}`);
  }
});
http.keepAliveTimeout = 60_000;

http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`sdk peer listening on http://127.0.0.1:${http.address().port}\n`);
});
process.on('SIGTERM', () => http.close(() => process.exit(0)));
