import { context as traceContext } from '@opentelemetry/api';
import {
  GatewayError,
  jsonRpcErrorFrom,
  jsonRpcResult,
  parseJsonRpcBody,
  PROTOCOL_VERSION_HEADER,
  type AgentClaims,
  type AgentService,
  type AuditEvent,
  type EarlyReservation,
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcRequest,
  type McpCaller,
  type McpService,
  type McpSession,
} from '@tollgate/gateway-core';
import { Hono, type Context } from 'hono';
import { bearerToken } from '../http/admin-guard.js';
import { BodyTooLargeError, clientGoneSignal, IncompleteBodyError, readBodyText, requestHeaders } from '../http/node-request.js';
import { replyWithKeepAlive, sseReply } from '../http/sse.js';
import { ToolCallSpan } from '../observability/tool-call-span.js';
import { ToolCallAudit } from './mcp-call-audit.js';

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
  /** A tools/call still running after this long switches to a streamed reply with keep-alive comments. */
  keepAliveMs: number;
  audit: (event: AuditEvent) => void;
  onUnexpectedError?: (error: unknown) => void;
}

/**
 * POST /mcp: JSON-RPC 2.0 over Streamable HTTP (spec 4.3). A successful
 * exchange answers one SSE `message` event; an error of spec 7 answers its
 * HTTP status with a JSON-RPC error body (application/json), so clients and
 * proxies see the failure in the status line. Every tools/call is audited
 * once, whichever step ends it.
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
    async (c) => {
      let id: JsonRpcId | null = null;
      let audit: ToolCallAudit | null = null;
      // Set inside the authentication callback, which TypeScript cannot see: hence the cast.
      let reservedAhead = null as EarlyReservation | null;
      try {
        // The size limit comes first: an oversized body is refused before anything else looks at the request.
        const body = await readBodyText(c, deps.maxBodyBytes);
        checkTransportHeaders(c);
        const incoming = parseJsonRpcBody(body);
        // The id to answer errors with: a refused message's id too, when it is itself valid.
        if (incoming.kind === 'request') id = incoming.message.id;
        else if (incoming.kind === 'invalid') id = incoming.id;
        if (incoming.kind === 'request' && incoming.message.method === 'tools/call') {
          audit = new ToolCallAudit(deps.audit, new ToolCallSpan(requestHeaders(c)));
        }
        // After the audit record is opened, so calls refused while not ready are on record too.
        if (!(await deps.isReady())) throw new NotReadyError('The gateway is not ready: see /health/ready');

        const opensSession = incoming.kind === 'request' && incoming.message.method === 'initialize';
        // The session lookup runs alongside authentication, so their store reads share one round
        // trip; what it found only counts once the caller is known to own it (claimSession).
        const touched = opensSession || incoming.kind === 'invalid' ? null : settle(deps.mcp.touchSession(c.req.header(SESSION_HEADER)));
        // A tools/call's budget reservation joins that round trip too; `handle` uses it or gives it back.
        const toolCallParams = audit && incoming.kind === 'request' ? incoming.message.params : undefined;
        const caller = await authenticate(c, deps.agents, (claims) => {
          if (audit) reservedAhead = deps.mcp.reserveAhead(claims.agentId, toolCallParams);
        });
        if (audit) audit.agentId = caller.agent.agentId;
        if (incoming.kind === 'invalid') throw incoming.error;

        if (opensSession) {
          const { sessionId, result } = await deps.mcp.initialize(caller, incoming.message.params);
          c.header(SESSION_HEADER, sessionId);
          return sseReply(c, jsonRpcResult(incoming.message.id, result));
        }
        const session = deps.mcp.claimSession(caller, await unwrap(touched!), c.req.header(PROTOCOL_VERSION_HEADER));
        if (audit) audit.sessionId = session.record.sessionId;
        // Notifications, and responses to requests this server never sends, need no answer.
        if (incoming.kind !== 'request') return c.body(null, 202);
        if (audit) return await toolCall(c, deps, { caller, session, request: incoming.message, audit, reservedAhead });
        const outcome = await deps.mcp.handle(caller, session, incoming.message);
        return sseReply(c, jsonRpcResult(incoming.message.id, outcome.result));
      } catch (error) {
        // Refused before the pipeline took it (authentication, session): give the reservation back.
        reservedAhead?.abandon();
        if (error instanceof BodyTooLargeError) return bodyTooLarge(c, deps);
        if (error instanceof IncompleteBodyError) return errorReply(c, null, new TransportError(400, 'The connection closed before the request body was complete'), deps);
        audit?.failed(error);
        return errorReply(c, id, error, deps);
      }
    },
  );

  // PUT, PATCH, OPTIONS...: the endpoint exists, the method does not (RFC 9110 15.5.6), not a 404.
  app.all('/', (c) => {
    c.header('Allow', 'POST, DELETE');
    return errorReply(c, null, new TransportError(405, `${c.req.method} is not supported on /mcp: use POST`), deps);
  });
  return app;
}

interface ToolCallRequest {
  caller: McpCaller;
  session: McpSession;
  request: JsonRpcRequest;
  audit: ToolCallAudit;
  reservedAhead: EarlyReservation | null;
}

/** A tools/call, answered normally when quick, streamed with keep-alive comments when slow. */
async function toolCall(c: Context, deps: McpRouteDeps, { caller, session, request, audit, reservedAhead }: ToolCallRequest): Promise<Response> {
  const handle = () => deps.mcp.handle(caller, session, request, { trace: audit.trace, reservedAhead });
  // In the request's span, so the pipeline's step spans and the downstream's traceparent join its trace.
  const settled = (audit.span ? traceContext.with(audit.span.context, handle) : handle()).then(
    (outcome) => {
      if ('call' in outcome) audit.succeeded(outcome.call);
      return { ok: true as const, result: outcome.result };
    },
    (error: unknown) => {
      audit.failed(error);
      return { ok: false as const, error };
    },
  );
  const reply = await replyWithKeepAlive(c, settled, deps.keepAliveMs, (done) =>
    done.ok ? jsonRpcResult(request.id, done.result) : streamedError(request.id, done.error),
  );
  if ('streamed' in reply) return reply.streamed;
  const done = reply.early;
  c.header('Server-Timing', audit.serverTiming());
  return done.ok ? sseReply(c, jsonRpcResult(request.id, done.result)) : errorReply(c, request.id, done.error, deps);
}

/** Once the stream has started the status line is sent: the HTTP status it would have had goes in `data`. */
function streamedError(id: JsonRpcId, error: unknown): JsonRpcFailure {
  const failure = jsonRpcErrorFrom(id, error);
  const httpStatus = error instanceof GatewayError ? error.httpStatus : 500;
  const data = failure.error.data;
  const merged = typeof data === 'object' && data !== null ? { ...data, httpStatus } : { httpStatus };
  return { ...failure, error: { ...failure.error, data: merged } };
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Started now, judged later: a rejection waits, unreported, until `unwrap` rethrows it. */
function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

async function unwrap<T>(settled: Promise<Settled<T>>): Promise<T> {
  const result = await settled;
  if (!result.ok) throw result.error;
  return result.value;
}

function bodyTooLarge(c: Context, deps: McpRouteDeps): Response {
  // The rest of the body is never read, so this connection cannot carry another request:
  // say so, or a keep-alive client sends its next request into a closing socket.
  c.header('Connection', 'close');
  return errorReply(c, null, new TransportError(413, `Request body is larger than ${deps.maxBodyBytes} bytes`), deps);
}

async function authenticate(c: Context, agents: AgentService, alongside?: (claims: AgentClaims) => void): Promise<McpCaller> {
  const { agent, claims } = await agents.authenticate(bearerToken(c.req.header('Authorization')), alongside);
  return { agent, tokenScopes: claims.scopes, signal: clientGoneSignal(c) };
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

function errorReply(c: Context, id: JsonRpcId | null, error: unknown, deps: McpRouteDeps): Response {
  const failure = jsonRpcErrorFrom(id, error);
  const status = error instanceof GatewayError ? error.httpStatus : 500;
  if (status === 500) deps.onUnexpectedError?.(error);
  // Errors that travel as ordinary JSON-RPC responses (method not found) keep the SSE framing.
  if (status === 200) return sseReply(c, failure);
  if (status === 401) c.header('WWW-Authenticate', 'Bearer');
  return c.json(failure, status as 400);
}
