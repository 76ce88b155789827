// The v2 SDK peer: the MCP proxy a team would write with the official v2
// server package (@modelcontextprotocol/server), its stateless entry
// `createMcpHandler`: a fresh McpServer per request, 2026-07-28 calls served
// from their envelope, 2025-era calls by its stateless legacy fallback. The
// tool forwards to the downstream with fetch (keep-alive by default), as
// sdk-peer.mjs does. No auth, budget, privacy, cap or audit: the floor of an
// MCP hop with the v2 SDK, not a feature-equivalent gateway.
//
// node:http in front of the web-standard handler, converted the plainest way
// (the body read once and handed over parsed, so the handler does not read it
// again), since `toNodeHandler` lives in a package of its own.
import { createServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const downstream = process.env.DOWNSTREAM_URL;
if (!downstream) throw new Error('DOWNSTREAM_URL is required');

function mcpServer() {
  const server = new McpServer({ name: 'sdk-v2-peer', version: '1.0.0' });
  server.registerTool(
    'get_item',
    { description: 'Fetch one item by id.', inputSchema: z.object({ id: z.number().int() }) },
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

const handler = createMcpHandler(mcpServer, { legacy: 'stateless' });

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const http = createServer(async (req, res) => {
  try {
    const text = req.method === 'POST' ? await readBody(req) : '';
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      ...(text && { body: text }),
    });
    const response = await handler.fetch(request, text ? { parsedBody: JSON.parse(text) } : undefined);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch (error) {
    if (!res.headersSent) res.writeHead(400, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `Bad Request: ${error.message}` } }),
    );
  }
});
http.keepAliveTimeout = 60_000;

http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`sdk v2 peer listening on http://127.0.0.1:${http.address().port}\n`);
});
process.on('SIGTERM', () => http.close(() => process.exit(0)));
