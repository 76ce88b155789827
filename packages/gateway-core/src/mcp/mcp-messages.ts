// What the transport hands the MCP service and what it gets back: the service's whole surface, with nothing of HTTP.
import type { AgentClaims } from '../auth/token-service.js';
import type { ErrorDescription } from '../errors.js';
import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { ListenReply } from './stateless-requests.js';
import type { HeaderRecord } from './tool-call-record.js';

/** What a client is told to wait before reconnecting to a lost stream. */
export const STREAM_RETRY_MS = 1_000;

export type ErrorDelivery = 'mcp' | 'http-status';

/** One POST to the MCP endpoint, as the transport received it. */
export interface McpPost {
  /** The `Authorization` header. */
  authorization: string | undefined;
  /** The `Mcp-Session-Id` header. */
  sessionId: string | undefined;
  /** The `MCP-Protocol-Version` header. */
  protocolVersion: string | undefined;
  /** The body, read by the transport within its size limit. */
  body: string;
  /** Aborts when the client goes away, so a downstream call nobody waits for is stopped. */
  signal?: AbortSignal;
  /** The request headers, for the W3C trace context a tools/call continues. */
  headers?: HeaderRecord;
  /** The claims `verifyCredentials` found in `authorization`, when the transport checked it before reading the body. */
  claims?: AgentClaims;
  /**
   * Why `verifyCredentials` refused `authorization`: answered and audited
   * as is, never checked again (a hanging issuer would cost twice).
   */
  refusal?: unknown;
}

/** A bearer token that checked out, or the refusal to send without reading further. */
export type McpCredentials = { ok: true; claims: AgentClaims } | { ok: false; answer: McpAnswer; refusal: unknown };

/** A request to end a session (DELETE on the MCP endpoint). */
export type McpSessionEnd = Pick<McpPost, 'authorization' | 'sessionId' | 'protocolVersion'>;

/** A JSON-RPC message to send back. */
export interface McpAnswer {
  kind: 'answer';
  message: JsonRpcResponse;
  /** The HTTP status to answer with (200 for an answer carried by the SSE stream). */
  status: number;
  /** Set when `message` is an error: the catalogue's description of it (the HTTP status among it). */
  failure?: ErrorDescription;
  /** Set by `initialize`: the new session, for the `Mcp-Session-Id` header. */
  sessionId?: string;
  /** Set for a tools/call that reached the pipeline: its `Server-Timing`. */
  serverTiming?: string;
  /** Set for a refused credential or missing scopes: what the `WWW-Authenticate` challenge says (RFC 6750 3). */
  challenge?: BearerChallenge;
}

/** The parameters of a Bearer challenge; none when the request carried no credential at all. */
export interface BearerChallenge {
  error?: 'invalid_token' | 'insufficient_scope';
  /** With `insufficient_scope`: the scopes to ask the authorization server for, space-separated. */
  scope?: string;
}

/**
 * What the transport does with a request. `pending` is a tools/call under
 * way: its answer may take as long as the downstream does, so the transport
 * may start its stream (and keep it alive) before the answer arrives.
 */
export type McpReply =
  | McpAnswer
  | { kind: 'accepted' }
  | { kind: 'ended' }
  | ListenReply
  | {
      kind: 'pending';
      answer: Promise<McpAnswer>;
      /** Set when the client may resume this stream if it loses it: the stream's id, for the SSE event ids. */
      streamId?: string;
      /** With `streamId`: the transport calls it once it sent the priming event, so the answer is kept for a resume. */
      streamStarted?: () => void;
    };

/** A client reconnecting to a stream it lost (GET on the MCP endpoint). */
export type McpResume = McpSessionEnd & {
  /** The `Last-Event-ID` header: the last event the client received. */
  lastEventId: string | undefined;
  /** Aborts when the client goes away again. */
  signal?: AbortSignal;
};

/** The rest of a resumed stream: its answer, or null when the client already had it. */
export type McpResumeReply = McpAnswer | { kind: 'resumed'; streamId: string; answer: Promise<JsonRpcResponse | null> };
