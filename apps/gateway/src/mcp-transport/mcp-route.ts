import {
  McpService,
  streamedMessage,
  transportFailure,
  type JsonRpcResponse,
  type McpAnswer,
} from '@tollgate/gateway-core';
import { TransportError } from '@tollgate/gateway-core/errors';
import {
  ANSWER_EVENT,
  eventId,
  PRIMING_EVENT,
  PROTOCOL_VERSION_HEADER,
  sseMessage,
  ssePriming,
  STREAM_RETRY_MS,
} from '@tollgate/gateway-core/internal';
import { Hono, type Context } from 'hono';
import type { McpExchange, McpResponse } from './mcp-exchange.js';
import { bearerChallengeHeader } from '../http/bearer-challenge.js';
import type { BodyAdmission } from '../http/body-admission.js';
import { retryAfterHeader } from '../http/retry-after.js';
import { checkDeclaredLength, clientGoneSignal, hasBody, readBodyText, requestHeaders } from './node-request.js';
import { replyWithKeepAlive, sseFrames } from './sse.js';
import { listenStream } from './listen-stream.js';

const SESSION_HEADER = 'Mcp-Session-Id';
const ALLOWED_METHODS = 'POST, DELETE';
/** Far above an initialize or tools/call envelope; what a caller with a refused token may make the gateway read. */
const MAX_REFUSED_BODY_BYTES = 16 * 1024;
/** Callers whose token was refused share one place in the body bound (no agent id is empty). */
const REFUSED_CALLERS = '';

export interface McpRouteDeps {
  mcp: McpService;
  maxBodyBytes: number;
  /** Bounds the body bytes held while bodies arrive. */
  bodies: BodyAdmission;
  /** A tools/call still running after this long switches to a streamed reply with keep-alive comments. */
  keepAliveMs: number;
}

/**
 * The MCP endpoint's transport (Streamable HTTP, contract 4.3): it reads the
 * request, hands it to the McpService, and writes what comes back. A
 * successful exchange is one SSE `message` event; a refusal answers the
 * catalogue's HTTP status with a JSON-RPC error body, unless the stream
 * had already started, in which case it travels inside it.
 */
export function mcpRoutes(deps: McpRouteDeps): Hono {
  const app = new Hono();

  app.post('/', (c) => postMcp(onHono(c), deps));

  // A client that lost the stream of a tools/call resumes it (Streamable HTTP); no other server stream is offered.
  app.get('/', async (c, next) => {
    const lastEventId = c.req.header('Last-Event-ID');
    if (lastEventId === undefined) return next();
    const reply = await deps.mcp.resume({
      authorization: c.req.header('Authorization'),
      sessionId: c.req.header(SESSION_HEADER),
      protocolVersion: c.req.header(PROTOCOL_VERSION_HEADER),
      lastEventId,
      signal: clientGoneSignal(c),
    });
    if (reply.kind === 'answer') return sendMcpAnswer(onHono(c), reply);
    const closing = (message: JsonRpcResponse | null) =>
      message === null ? '' : sseMessage(message, eventId(reply.streamId, ANSWER_EVENT));
    const raced = await replyWithKeepAlive(onHono(c), reply.answer, deps.keepAliveMs, closing);
    return 'streamed' in raced ? raced.streamed : sseFrames(onHono(c), closing(raced.early));
  });

  app.delete('/', async (c) => {
    const reply = await deps.mcp.end({
      authorization: c.req.header('Authorization'),
      sessionId: c.req.header(SESSION_HEADER),
      protocolVersion: c.req.header(PROTOCOL_VERSION_HEADER),
    });
    return reply.kind === 'answer' ? sendMcpAnswer(onHono(c), reply) : c.body(null, 204);
  });

  // GET without Last-Event-ID (no server stream is offered), PUT,
  // OPTIONS...: the endpoint exists, the method does not (RFC 9110 15.5.6).
  app.all('/', (c) => {
    c.header('Allow', ALLOWED_METHODS);
    const hint =
      c.req.method === 'GET'
        ? 'This gateway offers no server stream: use POST (GET only resumes a stream, with Last-Event-ID)'
        : `${c.req.method} is not supported on /mcp: use POST`;
    return sendMcpAnswer(onHono(c), transportFailure(new TransportError('method-not-allowed', hint)));
  });
  return app;
}

/** Hono's Context as an exchange whose replies are Responses. */
export const onHono = (c: Context): McpExchange<Response> => c;

/**
 * POST /mcp: the size limit, the token, the body, then the McpService; the
 * answer as `sendMcpAnswer` writes it. On any exchange: Hono's Context, or
 * the Node fast path's (see mcp-fast-path.ts), which serves the same
 * requests without building WHATWG objects.
 */
export async function postMcp<R extends McpResponse>(c: McpExchange<R>, deps: McpRouteDeps): Promise<R> {
  try {
    // The size limit comes first: an oversized body is refused before anything else looks at the request.
    checkDeclaredLength(c, deps.maxBodyBytes);
  } catch (error) {
    return sendMcpAnswer(c, transportFailure(error));
  }
  // Then the token, before the body is read or held.
  const credentials = await deps.mcp.verifyCredentials(c.req.header('Authorization'));
  if (!credentials.ok && !readableWhenRefused(c)) return unread(c, sendMcpAnswer(c, credentials.answer));
  const owner = credentials.ok ? credentials.claims.agentId : REFUSED_CALLERS;
  let body: string;
  try {
    body = await readBodyText(c, credentials.ok ? deps.maxBodyBytes : MAX_REFUSED_BODY_BYTES, (bytes) =>
      deps.bodies.admit(owner, bytes),
    );
    checkTransportHeaders(c);
  } catch (error) {
    // Past their share of the pending bytes, refused callers get their refusal, unread.
    return credentials.ok ? sendMcpAnswer(c, transportFailure(error)) : unread(c, sendMcpAnswer(c, credentials.answer));
  }
  const reply = await deps.mcp.post({
    // A refused token is answered and audited by post with the request's id, from its refusal (never verified twice).
    claims: credentials.ok ? credentials.claims : undefined,
    refusal: credentials.ok ? undefined : credentials.refusal,
    authorization: c.req.header('Authorization'),
    sessionId: c.req.header(SESSION_HEADER),
    protocolVersion: c.req.header(PROTOCOL_VERSION_HEADER),
    body,
    signal: clientGoneSignal(c),
    headers: requestHeaders(c),
  });
  if (reply.kind === 'accepted') return c.body(null, 202);
  if (reply.kind === 'ended') return c.body(null, 204);
  if (reply.kind === 'answer') return sendMcpAnswer(c, reply);
  if (reply.kind === 'listen') return listenStream(c, reply, deps.keepAliveMs);
  const { streamId } = reply;
  const opening = streamId === undefined ? undefined : ssePriming(eventId(streamId, PRIMING_EVENT), STREAM_RETRY_MS);
  const closing = (answer: McpAnswer) =>
    sseMessage(streamedMessage(answer), streamId && eventId(streamId, ANSWER_EVENT));
  const raced = await replyWithKeepAlive(c, reply.answer, deps.keepAliveMs, closing, opening);
  if (!('streamed' in raced)) return sendMcpAnswer(c, raced.early, streamId);
  // The client now holds the priming event's id: its answer is kept for a resume (finding 1 of issue 25).
  reply.streamStarted?.();
  return raced.streamed;
}

/**
 * An answer as HTTP: SSE when it is 200 (a resumable stream's priming event
 * first, and event ids), else the catalogue's status with the JSON-RPC error as JSON.
 */
export function sendMcpAnswer<R extends McpResponse>(c: McpExchange<R>, answer: McpAnswer, streamId?: string): R {
  if (answer.sessionId) c.header(SESSION_HEADER, answer.sessionId);
  if (answer.serverTiming) c.header('Server-Timing', answer.serverTiming);
  const status = answer.status;
  if (status === 200 && streamId === undefined) return sseFrames(c, sseMessage(answer.message));
  if (status === 200)
    return sseFrames(
      c,
      ssePriming(eventId(streamId!, PRIMING_EVENT), STREAM_RETRY_MS) +
        sseMessage(answer.message, eventId(streamId!, ANSWER_EVENT)),
    );
  if (answer.challenge)
    c.header('WWW-Authenticate', bearerChallengeHeader(answer.challenge, c.get('resourceMetadataUrl')));
  const retryAfter = answer.failure?.code === 'too-many-uploads' ? '1' : retryAfterHeader(errorData(answer));
  if (retryAfter !== undefined) c.header('Retry-After', retryAfter);
  // The rest of a refused body is never read, so this connection cannot carry another request:
  // say so, or a keep-alive client sends its next request into a closing socket.
  if (status === 413 || answer.failure?.code === 'too-many-uploads') c.header('Connection', 'close');
  return c.json(answer.message, status as 400);
}

/** The JSON-RPC error's data of an answer, if it is an error. */
function errorData(answer: McpAnswer): unknown {
  return 'error' in answer.message ? answer.message.error.data : undefined;
}

/**
 * A small body (any real MCP request) of a caller whose token was refused is
 * still read, so the 401 carries the request's id and a refused tools/call
 * is audited; a larger or chunked one is never read.
 */
function readableWhenRefused(c: McpExchange): boolean {
  const declared = c.req.header('Content-Length');
  return declared !== undefined && Number(declared) <= MAX_REFUSED_BODY_BYTES;
}

/** An answer sent without reading the request's body: the connection ends after it (see sendMcpAnswer). */
function unread<R extends McpResponse>(c: McpExchange, response: R): R {
  if (hasBody(c)) response.headers.set('Connection', 'close');
  return response;
}

function checkTransportHeaders(c: McpExchange): void {
  const contentType = c.req.header('Content-Type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new TransportError('unsupported-media-type', 'Content-Type must be application/json');
  }
  const accept = c.req.header('Accept');
  if (accept !== undefined && !/(text\/event-stream|text\/\*|\*\/\*)/i.test(accept)) {
    throw new TransportError(
      'not-acceptable',
      'Accept must include text/event-stream: responses are Server-Sent Events',
    );
  }
}
