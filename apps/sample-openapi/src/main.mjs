// A plain node:http API described by an OpenAPI document (src/openapi.yaml),
// served at GET /openapi.yaml: the second way to put an API behind the
// gateway, for services that are not Hono apps (Spring, FastAPI, Express...).
// The gateway reads the document (Gw:Downstreams:<name>:OpenApi) and turns
// each operation into a tool. Notes live in memory.
//
// Unlike the host-kit sample, it does not check the gateway's signed
// assertion, so it listens on 127.0.0.1 only; a real service behind the
// gateway verifies it (see docs/reference/contract.md) or accepts calls from the gateway alone.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const DOCUMENT = readFileSync(new URL('./openapi.yaml', import.meta.url), 'utf8');
const notes = new Map([
  [
    'n1',
    {
      id: 'n1',
      title: 'Welcome',
      body: 'Notes imported from an OpenAPI document.',
      tags: ['hello'],
      createdAt: new Date(0).toISOString(),
    },
  ],
]);
let nextId = 2;

function send(res, status, body) {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(body === undefined ? undefined : JSON.stringify(body));
}

function readJson(req) {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve(undefined);
      }
    });
  });
}

export function createNotesServer() {
  return createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const note = /^\/notes\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && url.pathname === '/openapi.yaml') {
      res.writeHead(200, { 'content-type': 'application/yaml' }).end(DOCUMENT);
    } else if (req.method === 'GET' && url.pathname === '/notes') {
      const tags = url.searchParams.getAll('tag');
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 10) || 10, 50);
      const found = [...notes.values()].reverse().filter((n) => tags.every((tag) => n.tags.includes(tag)));
      send(res, 200, found.slice(0, limit));
    } else if (req.method === 'POST' && url.pathname === '/notes') {
      const body = await readJson(req);
      if (typeof body?.title !== 'string' || body.title === '') return send(res, 400, { error: 'title is required' });
      const created = {
        id: `n${nextId++}`,
        title: body.title,
        body: body.body ?? '',
        tags: Array.isArray(body.tags) ? body.tags : [],
        createdAt: new Date().toISOString(),
      };
      notes.set(created.id, created);
      send(res, 201, created);
    } else if (note && req.method === 'GET') {
      const found = notes.get(decodeURIComponent(note[1]));
      send(res, found ? 200 : 404, found ?? { error: 'no such note' });
    } else if (note && req.method === 'DELETE') {
      send(res, notes.delete(decodeURIComponent(note[1])) ? 204 : 404);
    } else send(res, 404, { error: 'not found' });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = createNotesServer();
  server.listen(Number(process.env.PORT ?? 8082), process.env.HOST ?? '127.0.0.1', () => {
    const { address, port } = server.address();
    console.log(`sample OpenAPI API listening on http://${address}:${port} (document at /openapi.yaml)`);
  });
}
