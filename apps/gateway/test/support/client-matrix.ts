import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { createAgentWithToken, type TestAgent } from './mcp.js';
import { startPair, type Pair } from './pair.js';

/**
 * The client matrix of issue 14: every third-party MCP client × list, call,
 * downstream error, invalid arguments, budget refusal, session end, against
 * one built gateway + the sample downstream. One file per client
 * (`clients-*.test.ts`) drives its client the way its users do; what they
 * share (the pair, the agents, what each row must show) lives here.
 *
 * Every client talks to the gateway through a {@link Observer}: a transparent
 * loopback relay that forwards bytes both ways unchanged and writes down, per
 * HTTP exchange, the method, status, session id, JSON-RPC methods and the
 * `MCP-Protocol-Version` header. That is how a test sees which revision a
 * client negotiated, which HTTP status the gateway answered, and whether a
 * client re-initialized after its session ended, without reaching into the
 * client's internals.
 */

/** The tools the sample downstream serves to an agent without scopes. */
export const SAMPLE_TOOLS = ['get_order', 'get_product', 'search_products'] as const;
/** A read tool and an id the sample downstream has. */
export const KNOWN_ORDER = 1001;
/** An id the sample downstream answers 404 for: `{"error":"not_found","message":"Order 99999 was not found"}`. */
export const MISSING_ORDER = 99_999;
/** What the downstream said about {@link MISSING_ORDER}; the model must see it. */
export const DOWNSTREAM_MESSAGE = /Order 99999 was not found/;
/** Arguments get_order refuses: `id` is not an integer, `extra` is not an input. */
export const INVALID_ARGUMENTS = { id: 'abc', extra: 1 } as const;
/** Both failing fields named. */
export function expectFieldsNamed(text: string): void {
  expect(text).toMatch(/\bid\b.*integer/);
  expect(text).toMatch(/\bextra\b/);
}
/** The JSON-RPC code of an exhausted daily budget (spec 7). */
export const BUDGET_CODE = -32029;
/** The JSON-RPC code of invalid params. */
export const INVALID_PARAMS = -32602;
/** The JSON-RPC code and kind the gateway puts in `_meta` of a downstream failure. */
export const DOWNSTREAM_ERROR_META = {
  'io.tollgate/error': { code: -32002, kind: 'downstream-error', downstreamStatus: 404 },
};

/** One HTTP exchange the observer relayed. */
export interface Exchange {
  method: string;
  /** The request path (clients may probe others than `/mcp`, e.g. OAuth metadata). */
  path: string;
  status: number;
  /** `Mcp-Session-Id` the client sent. */
  sessionId?: string;
  /** `Mcp-Session-Id` the gateway answered with (initialize). */
  newSessionId?: string;
  /** `MCP-Protocol-Version` the client sent: the revision it negotiated. */
  protocolVersion?: string;
  /** JSON-RPC methods in the request body. */
  rpc: string[];
  /** `params.protocolVersion` of an initialize request. */
  requestedVersion?: string;
}

export interface Observer {
  /** The relay's `/mcp` URL: give this to the client. */
  readonly mcpUrl: string;
  readonly exchanges: Exchange[];
  /** Exchanges from this index on (for "what happened since"). */
  since(index: number): Exchange[];
  close(): Promise<void>;
}

/** A transparent relay in front of the gateway; see the module comment. */
export async function startObserver(gatewayUrl: string): Promise<Observer> {
  const target = new URL(gatewayUrl);
  const exchanges: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const exchange: Exchange = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        status: 0,
        sessionId: header(req.headers, 'mcp-session-id'),
        protocolVersion: header(req.headers, 'mcp-protocol-version'),
        ...rpcOf(body),
      };
      exchanges.push(exchange);
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          exchange.status = answer.statusCode ?? 0;
          exchange.newSessionId = header(answer.headers, 'mcp-session-id');
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    mcpUrl: `http://127.0.0.1:${port}/mcp`,
    exchanges,
    since: (index) => exchanges.slice(index),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function rpcOf(body: Buffer): Pick<Exchange, 'rpc' | 'requestedVersion'> {
  if (body.length === 0) return { rpc: [] };
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Array<{
      method?: string;
      params?: { protocolVersion?: string };
    }>;
    const initialize = messages.find((message) => message.method === 'initialize');
    return {
      rpc: messages.flatMap((message) => (message.method ? [message.method] : [])),
      requestedVersion: initialize?.params?.protocolVersion,
    };
  } catch {
    return { rpc: ['<not JSON>'] };
  }
}

export interface Matrix {
  readonly pair: Pair;
  readonly observer: Observer;
  /** Where the clients connect: the observer's `/mcp`. */
  readonly mcpUrl: string;
  /** A reader without scopes and with a large budget. */
  readonly reader: TestAgent;
  /** An agent whose daily budget is 0: every call is refused with -32029. */
  readonly broke: TestAgent;
  /** Ends a session from outside, as the gateway's expiry or an operator would: DELETE /mcp with its id; returns the status. */
  endSession(sessionId: string, token: string): Promise<number>;
  /** The session id of the newest initialize the observer saw answered. */
  lastSessionId(): string;
  stop(): Promise<void>;
}

/** One gateway + the sample downstream (`startPair`), the matrix's agents and the observer. */
export async function startMatrix(): Promise<Matrix> {
  const pair = await startPair();
  let observer: Observer | undefined;
  try {
    const admin = await pair.adminToken();
    const reader = await createAgentWithToken(pair.api, admin, { label: 'matrix-reader', dailyTokenBudget: 1_000_000 });
    const broke = await createAgentWithToken(pair.api, admin, { label: 'matrix-broke', dailyTokenBudget: 0 });
    observer = await startObserver(pair.url);
    const seen = observer;
    return {
      pair,
      observer: seen,
      mcpUrl: seen.mcpUrl,
      reader,
      broke,
      async endSession(sessionId, token) {
        const response = await fetch(`${pair.url}/mcp`, {
          method: 'DELETE',
          headers: { Authorization: `Bearer ${token}`, 'Mcp-Session-Id': sessionId },
        });
        await response.body?.cancel();
        return response.status;
      },
      lastSessionId() {
        const initialized = seen.exchanges.filter((exchange) => exchange.newSessionId !== undefined);
        const last = initialized.at(-1);
        if (!last) throw new Error('no initialize answered with a session id yet');
        return last.newSessionId!;
      },
      async stop() {
        await seen.close();
        await pair.stop();
      },
    };
  } catch (error) {
    await observer?.close();
    await pair.stop();
    throw error;
  }
}

/** The text parts of a tool result, joined. */
export function resultText(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> } | undefined)?.content;
  if (!Array.isArray(content)) throw new Error(`not a tool result: ${JSON.stringify(result)}`);
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('\n');
}

/** Launchers of the CLI clients, run with this Node (the `bin` of each package). */
const require = createRequire(import.meta.url);
export function binOf(packageName: string, bin: string): string {
  const manifest = require.resolve(`${packageName}/package.json`);
  return join(dirname(manifest), (require(manifest) as { bin: Record<string, string> }).bin[bin]!);
}

/** The POST exchanges (the SDKs also open a GET stream, which the gateway answers 405). */
export function posts(exchanges: readonly Exchange[]): Exchange[] {
  return exchanges.filter((exchange) => exchange.method === 'POST');
}
