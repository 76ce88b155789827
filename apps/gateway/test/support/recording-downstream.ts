import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the downstream received it: the raw request target, before any decoding. */
export interface RecordedRequest {
  method: string;
  /** Path and query exactly as sent on the request line. */
  target: string;
  body: string;
}

export interface RecordingDownstream {
  url: string;
  /** Every request except GET /gw/schema, in arrival order. */
  readonly requests: RecordedRequest[];
  /** The headers of each of `requests`, same index (apart, so the records compare as before). */
  readonly requestHeaders: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * A downstream API that serves the given tool definitions at GET /gw/schema
 * and answers every other request 200 `{ok: true, method, target}`, writing
 * it down. Tests use it to prove what reached the downstream, and what never
 * did, which the sample downstream cannot tell them.
 */
export async function startRecordingDownstream(tools: readonly object[]): Promise<RecordingDownstream> {
  const requests: RecordedRequest[] = [];
  const requestHeaders: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const target = req.url ?? '';
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'GET' && target === '/gw/schema') {
        res.end(JSON.stringify(tools));
        return;
      }
      requests.push({ method: req.method ?? '', target, body });
      requestHeaders.push(req.headers);
      res.end(JSON.stringify({ ok: true, method: req.method, target }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestHeaders,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A GET tool with one route value: `get_item` at `/items/{id}`. */
export const GET_ITEM_TOOL = {
  name: 'get_item',
  description: 'One item by id.',
  allowWrite: false,
  maxResponseTokens: 2000,
  category: null,
  requiredScopes: [],
  httpMethod: 'GET',
  routePattern: '/items/{id}',
  parameterSources: { id: 'route' },
  inputSchema: { type: 'object', properties: { id: { type: 'string', description: 'Item id' } }, required: ['id'] },
};
