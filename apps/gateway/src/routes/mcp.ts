import {
  GatewayError,

  jsonRpcErrorFrom,
  jsonRpcResult,
  parseJsonRpcBody,
  PROTOCOL_VERSION_HEADER,
  SSE_CONTENT_TYPE,
  sseMessage,
  type AgentService,
  type JsonRpcId,
  type McpCaller,
  type McpService,
} from '@tollgate/gateway-core';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { bearerToken } from '../http/admin-guard.js';

const SESSION_HEADER = 'Mcp-Session-Id';

/** 503 / -32003 until the store, the embedding model and the tool registry are ready (spec 4.4). */
class NotReadyError extends GatewayError {
  readonly httpStatus = 503;
  readonly jsonRpcCode = -32003;
  readonly title = 'Service unavailable';
}

class TransportError extends GatewayError {
  readonly jsonRpcCode = -32600;
  readonly title = 'Invalid Request';
  constructor(
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
  }
}

export interface McpRouteDeps {
  mcp: McpService;
  agents: AgentService;
  /** True when agent traffic may flow. */
  isReady: () => Promise<boolean>;
  maxBodyBytes: number;
  onUnexpectedError?: (error: unknown) => void;
}

/**
 * POST /mcp: JSON-RPC 2.0 over Streamable HTTP (spec 4.3). A successful
 * exchange answers one SSE `message` event; an error of spec 7 answers its
 * HTTP status with a JSON-RPC error body (application/json), so clients and
 * proxies see the failure in the status line.
 */
export function mcpRoutes(deps: McpRouteDeps): Hono {
  const app = new Hono();

  app.get('/', (c) => {
    c.header('Allow', 'POST, DELETE');
    return errorReply(c, null, new TransportError(405, 'This gateway offers no server stream: use POST'), deps);
  });

  app.delete('/', async (c) => {
    try {
      const caller = await authenticate(c, deps.agents);
      const session = await deps.mcp.resumeSession(caller, c.req.header(SESSION_HEADER), c.req.header(PROTOCOL_VERSION_HEADER));
      await deps.mcp.endSession(session);
      return c.body(null, 204);
    } catch (error) {
      return errorReply(c, null, error, deps);
    }
  });

  app.post(
    '/',
    bodyLimit({
      maxSize: deps.maxBodyBytes,
      onError: (c) => {
        // The rest of the body is never read, so this connection cannot carry another request:
        // say so, or a keep-alive client sends its next request into a closing socket.
        c.header('Connection', 'close');
        return errorReply(c, null, new TransportError(413, `Request body is larger than ${deps.maxBodyBytes} bytes`), deps);
      },
    }),
    async (c) => {
      let id: JsonRpcId | null = null;
      try {
        checkTransportHeaders(c);
        if (!(await deps.isReady())) throw new NotReadyError('The gateway is not ready: see /health/ready');
        const incoming = parseJsonRpcBody(await c.req.text());
        // The id to answer errors with: a refused message's id too, when it is itself valid.
        if (incoming.kind === 'request') id = incoming.message.id;
        else if (incoming.kind === 'invalid') id = incoming.id;
        const caller = await authenticate(c, deps.agents);
        if (incoming.kind === 'invalid') throw incoming.error;

        if (incoming.kind === 'request' && incoming.message.method === 'initialize') {
          const { sessionId, result } = await deps.mcp.initialize(caller, incoming.message.params);
          c.header(SESSION_HEADER, sessionId);
          return sseReply(c, jsonRpcResult(incoming.message.id, result));
        }
        const session = await deps.mcp.resumeSession(caller, c.req.header(SESSION_HEADER), c.req.header(PROTOCOL_VERSION_HEADER));
        // Notifications, and responses to requests this server never sends, need no answer.
        if (incoming.kind !== 'request') return c.body(null, 202);
        const outcome = await deps.mcp.handle(caller, session, incoming.message);
        return sseReply(c, jsonRpcResult(incoming.message.id, outcome.result));
      } catch (error) {
        return errorReply(c, id, error, deps);
      }
    },
  );
  return app;
}

async function authenticate(c: Context, agents: AgentService): Promise<McpCaller> {
  const { agent, claims } = await agents.authenticate(bearerToken(c.req.header('Authorization')));
  return { agent, tokenScopes: claims.scopes, signal: c.req.raw.signal };
}

function checkTransportHeaders(c: Context): void {
  const contentType = c.req.header('Content-Type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new TransportError(415, 'Content-Type must be application/json');
  }
  const accept = c.req.header('Accept');
  if (accept !== undefined && !/(text\/event-stream|text\/\*|\*\/\*)/i.test(accept)) {
    throw new TransportError(406, 'Accept must include text/event-stream: responses are Server-Sent Events');
  }
}

function sseReply(c: Context, message: Parameters<typeof sseMessage>[0]): Response {
  return c.body(sseMessage(message), 200, { 'Content-Type': SSE_CONTENT_TYPE, 'Cache-Control': 'no-cache' });
}

function errorReply(c: Context, id: JsonRpcId | null, error: unknown, deps: McpRouteDeps): Response {
  const failure = jsonRpcErrorFrom(id, error);
  const status = error instanceof GatewayError ? error.httpStatus : 500;
  if (status === 500) deps.onUnexpectedError?.(error);
  // Errors that travel as ordinary JSON-RPC responses (method not found) keep the SSE framing.
  if (status === 200) return sseReply(c, failure);
  if (status === 401) c.header('WWW-Authenticate', 'Bearer');
  return c.json(failure, status as 400);
}

