// A minimal, fixed-size downstream for the benchmark: one read tool, one fixed
// ~1 KB JSON answer with a few e-mail addresses in it (so the gateway's privacy
// filter has real work). node:http only, so the downstream costs as little CPU
// as possible and the numbers measure what sits in front of it.
import { createServer } from 'node:http';

const TOOL = {
  name: 'get_item',
  description: 'Fetch one item by id.',
  allowWrite: false,
  // Well above the ~300 tokens of the answer: the cap counts tokens but never cuts.
  maxResponseTokens: 4000,
  category: 'bench',
  requiredScopes: [],
  httpMethod: 'GET',
  routePattern: '/items/{id}',
  parameterSources: { id: 'route' },
  inputSchema: { type: 'object', properties: { id: { type: 'integer', description: 'Item id' } }, required: ['id'] },
};

const ITEM = {
  id: 1,
  sku: 'TG-000001',
  name: 'Benchmark widget',
  status: 'in_stock',
  priceCents: 129_900,
  currency: 'EUR',
  owner: { name: 'Ada Example', contact: 'ada.example@example.com' },
  watchers: ['grace.hopper@example.org', 'alan.turing@example.net'],
  tags: ['bench', 'fixed-size', 'echo', 'widget', 'catalog'],
  dimensions: { widthMm: 120, heightMm: 45, depthMm: 300, weightG: 850 },
  history: Array.from({ length: 6 }, (_, i) => ({
    at: `2025-01-0${i + 1}T10:00:00Z`,
    event: 'restocked',
    quantity: 10 * (i + 1),
  })),
  notes: 'A fixed answer of about one kilobyte, the size of a typical record an agent asks for. '.repeat(3).trim(),
};

const SCHEMA_BODY = Buffer.from(JSON.stringify([TOOL]));
const ITEM_BODY = Buffer.from(JSON.stringify(ITEM));
const ITEM_PATH = /^\/items\/\d+$/;

function reply(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  res.end(body);
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/gw/schema') return reply(res, 200, SCHEMA_BODY);
  if (req.method === 'GET' && ITEM_PATH.test(req.url ?? '')) return reply(res, 200, ITEM_BODY);
  reply(res, 404, Buffer.from('{"error":"not found"}'));
});
// Longer than any client's idle timeout, so pooled connections are never closed under a request.
server.keepAliveTimeout = 60_000;

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`echo downstream listening on http://127.0.0.1:${port} (item ${ITEM_BODY.length} bytes)\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
