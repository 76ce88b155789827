import { transportFailure } from '@tollgate/gateway-core';
import { describeError } from '@tollgate/gateway-core/errors';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastPath } from '../http/node-server.js';
import type { NodeRequestContext } from '../observability/request-context.js';
import { postMcp, sendMcpAnswer, type McpRouteDeps } from './mcp-route.js';
import { NodeMcpExchange, writeNodeReply, type NodeReply } from './mcp-exchange.js';
import { checkOrigin, checkSingleAuthorization, type OriginPolicy } from '../http/request-guards.js';

export interface McpFastPathDeps {
  route: McpRouteDeps;
  policy: OriginPolicy;
  /** Set when OAuth issuers are trusted: named in every challenge, as `withResourceMetadata` does on the app. */
  resourceMetadataUrl?: string;
  context?: NodeRequestContext;
  onUnexpectedError?: (error: unknown, path: string) => void;
}

/**
 * POST /mcp, the gateway's hot path, served without the app: the same steps
 * the app's route table runs for it, in its order (request context, origin
 * guard, route, error mapping), on a `NodeMcpExchange`, so no WHATWG
 * Request, Headers or Response is built per call. Only what the app would
 * do the same for every such request: a browser request (with `Origin`)
 * needs the CORS middleware and goes to the app, as does every other
 * method and path.
 */
export function mcpFastPath(deps: McpFastPathDeps): FastPath {
  return (incoming, outgoing) => {
    if (incoming.method !== 'POST' || incoming.url !== '/mcp' || incoming.headers.origin !== undefined) return false;
    const serve = (requestId: string | undefined) => servePost(deps, incoming, outgoing, requestId);
    const served = deps.context
      ? deps.context.around(headerValue(incoming, 'x-request-id'), 'POST', '/mcp', serve)
      : serve(undefined);
    served.catch((error: unknown) => {
      // Only writing the reply can fail here; the client is gone or the socket broke.
      deps.onUnexpectedError?.(error, '/mcp');
      outgoing.destroy();
    });
    return true;
  };
}

/**
 * Resolves with the status answered, once the reply is handed to Node (a
 * streamed one: once its headers are), as the app's access line would see it.
 */
async function servePost(
  deps: McpFastPathDeps,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  requestId: string | undefined,
): Promise<number> {
  const exchange = new NodeMcpExchange(incoming, outgoing, deps.resourceMetadataUrl);
  if (requestId !== undefined) exchange.header('X-Request-Id', requestId);
  let reply: NodeReply;
  try {
    checkOrigin(exchange, deps.policy);
    checkSingleAuthorization(exchange);
    reply = await postMcp(exchange, deps.route);
  } catch (error) {
    // As the app's error handler answers on /mcp.
    if (!describeError(error).expected) deps.onUnexpectedError?.(error, '/mcp');
    reply = sendMcpAnswer(exchange, transportFailure(error));
  }
  // A body left unread (a refusal answered before it) is drained once the reply is out, as Hono's adapter does.
  outgoing.once('close', () => {
    if (!incoming.readableEnded) setTimeout(() => setTimeout(() => drainIncoming(incoming)));
  });
  try {
    writeNodeReply(outgoing, reply)?.catch(() => outgoing.destroy());
  } catch {
    outgoing.destroy();
  }
  return reply.status;
}

/**
 * Past these, a body nobody reads is not drained any more: its
 * connection closes (through the socket's lingering close).
 */
const DRAIN_TIMEOUT_MS = 500;
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

/** Reads and drops the rest of a body, so a keep-alive connection can carry the next request. */
function drainIncoming(incoming: IncomingMessage): void {
  if (incoming.destroyed || incoming.readableEnded) return;
  let bytesRead = 0;
  const cleanup = () => {
    clearTimeout(timer);
    incoming.off('data', onData).off('end', cleanup).off('error', cleanup);
  };
  const forceClose = () => {
    cleanup();
    if (!incoming.socket.destroyed) incoming.socket.destroySoon();
  };
  const timer = setTimeout(forceClose, DRAIN_TIMEOUT_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    bytesRead += chunk.length;
    if (bytesRead > MAX_DRAIN_BYTES) forceClose();
  };
  incoming.on('data', onData).on('end', cleanup).on('error', cleanup);
  incoming.resume();
}

function headerValue(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

const fastPaths = new WeakMap<object, FastPath>();

/** Remembers the fast path that goes with an app (see `createGatewayApp`). */
export function attachFastPath(app: object, fastPath: FastPath): void {
  fastPaths.set(app, fastPath);
}

/** The fast path built with this app, if any: the server tries it before handing a request to the app. */
export function fastPathOf(app: object): FastPath | undefined {
  return fastPaths.get(app);
}
