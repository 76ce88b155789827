import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A downstream the test steers: it serves `/gw/schema` and a few tools from
 * the test process, answers with whatever status and delay the test sets,
 * counts the requests that reach it, and can be killed and brought back on
 * the same port. Loopback only.
 */

export interface ToolDefinitionJson {
  name: string;
  description: string;
  allowWrite: boolean;
  maxResponseTokens: number;
  requiredScopes: string[];
  httpMethod: 'GET' | 'POST';
  routePattern: string;
  parameterSources: Record<string, 'route' | 'query' | 'body'>;
  inputSchema: { type: 'object'; properties: Record<string, { type: string }>; required: string[] };
}

/** `get_item` (GET /items/{id}): a read, retried on 502/503/504. */
export const GET_ITEM: ToolDefinitionJson = {
  name: 'get_item',
  description: 'Reads one item by id.',
  allowWrite: false,
  maxResponseTokens: 200,
  requiredScopes: [],
  httpMethod: 'GET',
  routePattern: '/items/{id}',
  parameterSources: { id: 'route' },
  inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
};

/** `create_item` (POST /items): a write, never retried. */
export const CREATE_ITEM: ToolDefinitionJson = {
  name: 'create_item',
  description: 'Creates an item.',
  allowWrite: true,
  maxResponseTokens: 200,
  requiredScopes: [],
  httpMethod: 'POST',
  routePattern: '/items',
  parameterSources: { name: 'body' },
  inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

/** A tool to add to the schema later (registry refresh). */
export const COUNT_ITEMS: ToolDefinitionJson = {
  ...GET_ITEM,
  name: 'count_items',
  description: 'Counts the items.',
  routePattern: '/items-count',
  parameterSources: {},
  inputSchema: { type: 'object', properties: {}, required: [] },
};

export interface DownstreamHit {
  method: string;
  path: string;
}

export class ControlledDownstream {
  /** The tools `/gw/schema` serves; change it to simulate a new deployment. */
  tools: ToolDefinitionJson[] = [GET_ITEM, CREATE_ITEM];
  /** The status of tool answers: 200 answers JSON, anything else an error body. */
  status = 200;
  /** Delay before each tool answer. */
  delayMs = 0;
  /** Every tool request received (not `/gw/schema`), in arrival order. */
  readonly hits: DownstreamHit[] = [];
  /** Tool requests the gateway cancelled (closed) before they were answered. */
  readonly cancelled: DownstreamHit[] = [];
  #server: Server | null = null;
  #port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** Starts on a free port, or on the port it had before `kill`. */
  async start(): Promise<this> {
    const server = createServer((request, response) => void this.#handle(request, response));
    server.listen(this.#port, '127.0.0.1');
    await once(server, 'listening');
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
    return this;
  }

  /** Stops accepting and cuts every open connection, the way a crashed process looks. */
  async kill(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (!server) return;
    const closed = once(server, 'close');
    server.close();
    server.closeAllConnections();
    await closed;
  }

  hitsOn(path: string): number {
    return this.hits.filter((hit) => hit.path === path).length;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://downstream');
    let body = '';
    for await (const chunk of request) body += chunk;
    if (url.pathname === '/gw/schema') return reply(response, 200, this.tools);
    const hit = { method: request.method ?? '', path: url.pathname };
    this.hits.push(hit);
    response.once('close', () => {
      if (!response.writableFinished) this.cancelled.push(hit);
    });
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (response.destroyed) return;
    if (this.status !== 200) return reply(response, this.status, { error: `status ${this.status}` });
    if (url.pathname === '/items-count') return reply(response, 200, { count: 42 });
    if (request.method === 'POST') return reply(response, 200, { created: JSON.parse(body || '{}') });
    return reply(response, 200, { id: Number(url.pathname.split('/').pop()), name: 'widget', price: 12.5 });
  }
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts a controlled downstream on a free loopback port. */
export function startControlledDownstream(): Promise<ControlledDownstream> {
  return new ControlledDownstream().start();
}
