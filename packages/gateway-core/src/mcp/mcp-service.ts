import { randomBytes } from 'node:crypto';
import type { AgentService } from '../agents/agent-service.js';
import type { AgentClaims } from '../auth/token-service.js';
import type { AuditEvent } from '../audit/trail.js';
import { bearerToken } from '../auth/bearer.js';
import { readVirtualCall, type ToolSearchMode, type VirtualCall } from '../catalog/search/search-mode.js';
import { parseSearchArguments, SEARCH_TOOLS } from '../catalog/search/virtual-tools.js';
import {
  describeError,
  InsufficientScopeError,
  InvalidInputError,
  InvalidRequestError,
  MethodNotFoundError,
  NotReadyError,
  SessionNotFoundError,
  StreamGoneError,
  UnauthorizedError,
  type ErrorDescription,
} from '../errors.js';
import { CallPreparation, type PreparedCall } from '../pipeline/prepared-call.js';
import { callTool } from '../pipeline/tool-call.js';
import type { ToolCallDeps } from '../pipeline/tool-call-deps.js';
import type { ToolCallFailure, ToolCallReport } from '../pipeline/tool-call-report.js';
import { buildInitializeResult, parseInitializeParams, type ServerInfo } from '../protocol/initialize.js';
import {
  jsonRpcErrorFrom,
  jsonRpcResult,
  parseJsonRpcBody,
  type IncomingMessage,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import { isAtLeast, protocolVersionForRequest, type ProtocolVersion } from '../protocol/protocol-version.js';
import { buildToolErrorResult, type ToolCallResult } from '../protocol/tool-result.js';
import { eraOf, type Era } from '../protocol/envelope.js';
import { checkParamHeaders, paramHeaderMarks, type ParamHeader } from '../protocol/param-headers.js';
import type { AgentRecord, ExternalSubject, SessionRecord, SessionStore, StreamStore } from '../store/ports.js';
import { toolsForAgent } from '../tools/access.js';
import type { RegisteredTool } from '../tools/registry.js';
import { toolsListResult } from '../tools/listing.js';
import { loadTokenizer } from '../tokens/count.js';
import { judgedLater } from '../util/judged-later.js';
import { ResumableStreams } from './resumable-streams.js';
import { ResumeAdmission } from './resume-admission.js';
import type { ListenStreams } from './listen-streams.js';
import {
  answerStateless,
  openListen,
  STATELESS_FEATURES,
  statelessMessage,
  type ListenReply,
} from './stateless-requests.js';
import { RunningCalls } from './running-calls.js';
import type { WriteConfirmation } from './write-confirmation.js';
import { ANSWER_EVENT, parseEventId, StreamIds } from './stream-id.js';
import { ToolCallRecord, type HeaderRecord } from './tool-call-record.js';

/** 32 base64url characters: 192 random bits. Anything else is not ours and skips the store. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export interface McpServiceOptions {
  sessions: SessionStore;
  sessionIdleMs: number;
  /**
   * Open sessions one agent may hold (default 100). Opening one more ends the
   * agent's least recently used session, on every instance: a client that
   * keeps calling `initialize` costs the store at most this many sessions.
   */
  maxSessionsPerAgent?: number;
  /**
   * tools/call requests one agent may have in flight on this instance
   * (default 32; 0 = no limit). One more is refused as `too-many-calls`
   * before it reserves budget or reaches the downstream.
   */
  maxConcurrentCallsPerAgent?: number;
  agents: AgentService;
  toolCall: ToolCallDeps;
  serverInfo: ServerInfo;
  /** Told about every tools/call once, whichever step ended it; must not throw or wait. */
  audit: (event: AuditEvent) => void;
  /** Whether agent traffic may flow (contract 4.4); until then every request is refused as not ready. */
  isReady: () => Promise<boolean>;
  /** Told about errors outside the catalogue, whose message never reaches the caller. */
  onUnexpectedError?: (error: unknown) => void;
  /**
   * `mcp` (default): each error as the catalogue's `delivery` says — tool
   * errors as `isError` results, refusals as JSON-RPC errors in HTTP 200,
   * credentials, sessions and malformed requests with their HTTP status.
   * `http-status`: every error with its contract 7 HTTP status, for clients
   * that read the status line.
   */
  errorDelivery?: ErrorDelivery;
  /**
   * Where the answer of a tools/call whose client went away is kept, so the
   * client can resume its stream on any instance (`resume`). Without it,
   * streams cannot be resumed and a client that leaves cancels its call.
   */
  streams?: StreamStore;
  /** How long such an answer is kept, and how long a resume waits for it. Default 2 minutes. */
  resumeWindowMs?: number;
  /**
   * Signs stream ids, so a resume naming a made-up stream, or another
   * session's, is refused at once. Instances that resume each other's streams
   * share it. Default: a random key of this process's own.
   */
  streamIdKey?: Uint8Array;
  /** Resumes one agent may have waiting on this instance at once. Default 8. */
  maxResumesPerAgent?: number;
  /**
   * Resumes waiting on this instance at once, every agent's together: keep it below the connection limit. Default 512.
   */
  maxResumes?: number;
  /** The `subscriptions/listen` streams of this instance (MCP 2026-07-28); without it, that method is not served. */
  listens?: ListenStreams;
  clock?: () => Date;
  /**
   * Search mode (`Gw:Catalog:Search`): absent, every agent sees
   * the whole catalog and search_tools and call_tool are unknown.
   */
  toolSearch?: ToolSearchMode;
  /** Write confirmation (`confirmWrites`, a tool's `confirm`); absent, no call waits for the user. */
  writeConfirmation?: WriteConfirmation;
}

/** A client reconnecting to a stream it lost (GET on the MCP endpoint). */
export type McpResume = McpSessionEnd & {
  /** The `Last-Event-ID` header: the last event the client received. */
  lastEventId: string | undefined;
  /** Aborts when the client goes away again. */
  signal?: AbortSignal;
};

/** The rest of a resumed stream: its answer, or null when the client already had it. */
export type McpResumeReply = McpAnswer | { kind: 'resumed'; streamId: string; answer: Promise<JsonRpcResponse | null> };

const DEFAULT_RESUME_WINDOW_MS = 120_000;
/**
 * A client normally holds one session per connection, and an agent is one
 * credential: 100 leaves room for a fleet of workers sharing one, while an
 * agent opening sessions in a loop holds at most 100 (about 40 KB in Redis).
 */
const DEFAULT_MAX_SESSIONS_PER_AGENT = 100;
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

/** The authenticated agent behind a request. */
interface McpCaller {
  agent: AgentRecord;
  tokenScopes: readonly string[];
  /** Set when the token is an OAuth issuer's: the identity, for the audit trail. */
  external?: ExternalSubject;
  signal: AbortSignal | undefined;
  /** A resumable call's: keeps its answer before it is charged (see `ToolCallContext.keepAnswer`). */
  keepAnswer?: (result: ToolCallResult) => Promise<boolean>;
}

interface McpSession {
  record: SessionRecord;
  /** The version this request speaks: the negotiated one, confirmed by the header. */
  protocolVersion: ProtocolVersion;
}

/** Where a tools/call runs: in a session (2024-11-05 … 2025-11-25), or in none (2026-07-28). */
interface CallScope {
  sessionId: string | null;
  /** The revision whose result features the pipeline uses. */
  protocolVersion: ProtocolVersion;
}

/** Messages that are not requests or notifications have no envelope: the session era's, as before 2026-07-28. */
const SESSION_ERA: Era = { kind: 'session' };

/**
 * Who is asking and in which session (none for `initialize`), and a tools/call's pre-flight; or why they may not ask.
 */
type Admission =
  | { ok: true; caller: McpCaller; session: McpSession | null; prepared: PreparedCall | null }
  | { ok: false; error: unknown; agentId: string | null; tool: string | null };

/** A failure before the pipeline started: nothing was learnt about the call. */
const NOTHING_LEARNT = {
  tool: null,
  argsDigest: null,
  cacheTier: null,
  downstreamStatus: null,
  downstreamMs: null,
  tokensCharged: 0,
  downstreamAnswer: null,
};

/** Requests answered without a session: `initialize`, and the discovery newer clients try first. */
const SESSIONLESS_METHODS: ReadonlySet<string> = new Set(['initialize', 'server/discover']);

/**
 * The MCP endpoint as one use-case (contract 3.2, 4.3): a request in, an
 * answer out, nothing of HTTP in between. It owns the order of the checks
 * (readiness, one store round trip for the agent, its revocation, its
 * session and a tools/call's pre-flight, `PreparedCall`; then the session's
 * owner), the dispatch of each method, and the guarantee that every
 * tools/call is audited exactly once, whichever step ends it. Failures are
 * answers built from the error catalogue; `post` never rejects.
 */
export class McpService {
  readonly #options: McpServiceOptions;
  readonly #calls: CallPreparation;
  readonly #streams: ResumableStreams | null;
  readonly #streamIds: StreamIds;
  readonly #resumes: ResumeAdmission;
  readonly #running = new RunningCalls();
  readonly #maxSessions: number;

  constructor(options: McpServiceOptions) {
    this.#options = options;
    // This process serves calls: their answers are counted, so the tokenizer loads now rather than on the first one.
    loadTokenizer();
    this.#maxSessions = options.maxSessionsPerAgent ?? DEFAULT_MAX_SESSIONS_PER_AGENT;
    if (!Number.isSafeInteger(this.#maxSessions) || this.#maxSessions < 1) {
      throw new RangeError(`maxSessionsPerAgent must be a positive integer, got ${this.#maxSessions}`);
    }
    this.#calls = new CallPreparation(options.toolCall, options.maxConcurrentCallsPerAgent);
    this.#streams = options.streams
      ? new ResumableStreams(options.streams, options.resumeWindowMs ?? DEFAULT_RESUME_WINDOW_MS)
      : null;
    this.#streamIds = new StreamIds(options.streamIdKey ?? randomBytes(32));
    this.#resumes = new ResumeAdmission(options.maxResumesPerAgent, options.maxResumes);
  }

  async post(request: McpPost): Promise<McpReply> {
    const incoming = parseJsonRpcBody(request.body);
    const requested = incoming.kind === 'request' && incoming.message.method === 'tools/call' ? incoming.message : null;
    // call_tool is read as the call it wraps from here on, so its pre-flight works on the real tool.
    const virtual = this.#options.toolSearch ? readVirtualCall(requested) : null;
    const call = virtual?.kind === 'call_tool' && virtual.ok ? virtual.unwrapped : requested;
    // Opened before any check, so a call refused at any step is on record too.
    const record = call ? new ToolCallRecord(this.#options.audit, request.headers) : null;
    const era =
      incoming.kind === 'request' || incoming.kind === 'notification'
        ? eraOf({
            method: incoming.message.method,
            params: incoming.message.params,
            sessionId: request.sessionId,
            headers: request.headers,
          })
        : SESSION_ERA;
    const admission = await this.#admit(request, incoming, call, era);
    if (!admission.ok) {
      // Once the token checked out, the record names its agent and the tool it asked for, even when
      // the agent's own record could not be read (a store outage): the audit write waits for the store.
      record?.end(
        { agentId: admission.agentId, sessionId: null },
        { ok: false, error: admission.error, ...NOTHING_LEARNT, tool: admission.tool },
      );
      return this.#failure(replyId(incoming), admission.error);
    }
    const { caller, session } = admission;
    this.#calls.remember(caller.agent);
    if (incoming.kind === 'notification' && incoming.message.method === 'notifications/cancelled' && session) {
      this.#running.cancel(session.record.sessionId, incoming.message.params?.requestId);
    }
    // Notifications, and responses to requests this server never sends, need no answer.
    if (incoming.kind !== 'request') return { kind: 'accepted' };
    if (era.kind === 'stateless')
      return this.#stateless(caller, record && call ? call : incoming.message, record, admission.prepared, virtual);
    if (record && session && call) return this.#pendingCall(caller, session, call, record, admission.prepared, virtual);
    try {
      return await this.#answer(caller, session, incoming.message);
    } catch (error) {
      return this.#failure(incoming.message.id, error);
    }
  }

  /**
   * The token's signature, audience and expiry, without a store read: lets
   * the transport refuse an anonymous or forged request before it reads
   * (and holds) its body. `post` takes the claims so it does not check twice.
   */
  async verifyCredentials(authorization: string | undefined): Promise<McpCredentials> {
    try {
      return { ok: true, claims: await this.#options.agents.verifyToken(bearerToken(authorization)) };
    } catch (error) {
      return { ok: false, answer: this.#failure(null, error), refusal: error };
    }
  }

  /** Ends the caller's session: `ended`, or the refusal as an answer. */
  async end(request: McpSessionEnd): Promise<McpReply> {
    try {
      const session = await this.#ownSession(request);
      await this.#options.sessions.delete(session.record.sessionId);
      return { kind: 'ended' };
    } catch (error) {
      return this.#failure(null, error);
    }
  }

  /**
   * Resumes a stream the client lost: its answer once kept (the call may still
   * be running, here or on another instance), or a `stream-gone` error for its
   * request when the window passes without one.
   */
  async resume(request: McpResume): Promise<McpResumeReply> {
    try {
      const session = await this.#ownSession(request);
      const { sessionId, agentId } = session.record;
      const position = request.lastEventId === undefined ? null : parseEventId(request.lastEventId);
      // A made-up stream, or another session's, could never be answered here: refused at once, not waited on.
      if (position === null || !this.#streamIds.belongsTo(position.streamId, sessionId))
        throw new InvalidRequestError('Last-Event-ID names no stream of this session');
      if (position.seen >= ANSWER_EVENT)
        return { kind: 'resumed', streamId: position.streamId, answer: Promise.resolve(null) };
      // Each waiting resume holds a connection: bounded per agent and in all (throws when past either).
      const leave = this.#resumes.enter(agentId);
      const kept = (this.#streams?.kept(position, sessionId, request.signal) ?? Promise.resolve(null)).finally(leave);
      // Nothing kept within the window: the request gets an answer all the same, saying to call again.
      const answer = kept.then(
        (message) => message ?? streamedMessage(this.#failure(position.requestId, new StreamGoneError())),
      );
      return { kind: 'resumed', streamId: position.streamId, answer };
    } catch (error) {
      // Not a JSON-RPC request: every refusal with its HTTP status (a 429 says to retry later), never a 200 stream.
      const refusal = this.#failure(null, error);
      return { ...refusal, status: refusal.failure?.httpStatus ?? refusal.status };
    }
  }

  /**
   * A tools/call under way. From 2025-03-26 (when MCP made streams
   * resumable) and with a stream store, it gets a stream id, and a client
   * that leaves no longer cancels it: its answer is kept for a resume.
   */
  #pendingCall(
    caller: McpCaller,
    session: McpSession,
    request: JsonRpcRequest,
    record: ToolCallRecord,
    prepared: PreparedCall | null,
    virtual: VirtualCall | null,
  ): McpReply {
    const streams = this.#streams;
    const scope = { sessionId: session.record.sessionId, protocolVersion: session.protocolVersion };
    if (!streams || !isAtLeast(session.protocolVersion, '2025-03-26')) {
      return { kind: 'pending', answer: this.#toolCall(caller, scope, request, record, prepared, virtual) };
    }
    const streamId = this.#streamIds.issue(request.id, session.record.sessionId);
    const keeper = streams.keeper(streamId, session.record.sessionId, caller.signal);
    const keepAnswer = (result: ToolCallResult) => keeper.keepCharged(jsonRpcResult(request.id, result));
    const answer = this.#toolCall(
      { ...caller, signal: undefined, keepAnswer },
      scope,
      request,
      record,
      prepared,
      virtual,
    );
    keeper.keepIfLost(answer.then(streamedMessage));
    return { kind: 'pending', answer, streamId, streamStarted: keeper.streamStarted };
  }

  /**
   * A 2026-07-28 request: no session read or written. A tools/call runs the
   * same pipeline; its stream is not resumable (that revision has none), so a
   * client that closes it cancels the call. Every result gains `resultType`
   * and the server's identity.
   */
  async #stateless(
    caller: McpCaller,
    request: JsonRpcRequest,
    record: ToolCallRecord | null,
    prepared: PreparedCall | null,
    virtual: VirtualCall | null,
  ): Promise<McpReply> {
    const { serverInfo } = this.#options;
    const complete = (reply: McpAnswer): McpAnswer => ({
      ...reply,
      message: statelessMessage(reply.message, serverInfo),
    });
    if (record) {
      const answer = this.#toolCall(
        caller,
        { sessionId: null, protocolVersion: STATELESS_FEATURES },
        request,
        record,
        prepared,
        virtual,
      );
      return { kind: 'pending', answer: answer.then(complete) };
    }
    const { listens } = this.#options;
    try {
      if (request.method === 'subscriptions/listen' && listens)
        return openListen(listens, caller.agent.agentId, request);
      return complete(
        answer(
          answerStateless(
            { listChanged: listens !== undefined, listForCaller: () => this.#listResult(caller, STATELESS_FEATURES) },
            request,
          ),
        ),
      );
    } catch (error) {
      return this.#failure(request.id, error);
    }
  }

  /**
   * Readiness, then authentication, whose store reads share one round trip
   * with the session lookup and a tools/call's pre-flight; then the session
   * must belong to the caller. A message refused as invalid is answered only
   * once its sender is authenticated.
   */
  async #admit(request: McpPost, incoming: IncomingMessage, call: JsonRpcRequest | null, era: Era): Promise<Admission> {
    let agentId: string | null = null;
    let prepared: PreparedCall | null = null;
    try {
      if (!(await this.#options.isReady())) {
        // A tools/call is refused all the same, but on the record of
        // the agent whose token checks out, so its audit view shows it.
        if (call) agentId = (await this.#verifiedAgentId(request)) ?? null;
        throw new NotReadyError('The gateway is not ready: see /health/ready');
      }
      const opensSession = incoming.kind === 'request' && SESSIONLESS_METHODS.has(incoming.message.method);
      // What this lookup finds only counts once the caller is known to own it. A 2026-07-28 request has no session.
      const lookup =
        opensSession || incoming.kind === 'invalid' || era.kind !== 'session'
          ? null
          : judgedLater(this.#touchSession(request.sessionId));
      if (request.refusal !== undefined) throw request.refusal;
      const claims = request.claims ?? (await this.#options.agents.verifyToken(bearerToken(request.authorization)));
      agentId = claims.agentId;
      // Sent just before the agent's reads: one round trip. Released when the call ends, or below.
      prepared = call ? this.#calls.prepare(claims.agentId, call.params?.name, call.params?.arguments) : null;
      const caller = {
        agent: await this.#options.agents.agentFor(claims),
        tokenScopes: claims.scopes,
        external: claims.external,
        signal: request.signal,
      };
      if (incoming.kind === 'invalid') throw incoming.error;
      if (era.kind === 'refused') throw era.error;
      // A downstream's x-mcp-header parameters arrive mirrored as Mcp-Param-* headers, which must agree with the
      // arguments: on a direct tools/call only, as search mode's
      // call_tool has its own schema, the one its client sees and mirrors.
      const tool = prepared?.tool;
      if (era.kind === 'stateless' && tool !== undefined && call === incoming.message)
        checkParamHeaders(paramHeadersFor(tool), call?.params?.arguments, request.headers);
      const session = lookup ? this.#claimSession(caller, await lookup, request.protocolVersion) : null;
      return { ok: true, caller, session, prepared };
    } catch (error) {
      prepared?.release();
      // Once the token checked out, the record names the tool asked
      // for, even when the agent's own record could not be read.
      const tool =
        agentId === null ? null : prepared ? prepared.toolName : this.#calls.knownToolName(call?.params?.name);
      return { ok: false, error, agentId, tool };
    }
  }

  /** The agent a request's token names, when the token checks out (no store read). */
  async #verifiedAgentId(request: McpPost): Promise<string | undefined> {
    if (request.claims) return request.claims.agentId;
    // Refused by the transport's check already: not verified twice (a hanging issuer would cost its timeout again).
    if (request.refusal !== undefined) return undefined;
    const verified = await this.verifyCredentials(request.authorization);
    return verified.ok ? verified.claims.agentId : undefined;
  }

  /** The caller's session, for requests outside a message (end, resume): authentication, then the owner check. */
  async #ownSession(request: McpSessionEnd): Promise<McpSession> {
    const { agent, claims } = await this.#options.agents.authenticate(bearerToken(request.authorization));
    const caller = { agent, tokenScopes: claims.scopes, external: claims.external, signal: undefined };
    return this.#claimSession(caller, await this.#touchSession(request.sessionId), request.protocolVersion);
  }

  /** The session named by the header, its idle expiry extended. Missing header: 400; not ours: see `#claimSession`. */
  async #touchSession(sessionId: string | undefined): Promise<SessionRecord | null> {
    if (sessionId === undefined || sessionId === '') {
      throw new InvalidRequestError('Mcp-Session-Id header is required: call initialize first');
    }
    if (!SESSION_ID_PATTERN.test(sessionId)) return null;
    return this.#options.sessions.touch(sessionId, this.#options.sessionIdleMs);
  }

  /** Unknown, expired or another agent's session: 404 alike. */
  #claimSession(caller: McpCaller, record: SessionRecord | null, versionHeader: string | undefined): McpSession {
    if (record === null || record.agentId !== caller.agent.agentId) throw new SessionNotFoundError();
    const protocolVersion = protocolVersionForRequest(versionHeader, record.protocolVersion as ProtocolVersion);
    return { record, protocolVersion };
  }

  /** Every method but tools/call; `initialize` and `server/discover` come without a session. */
  async #answer(caller: McpCaller, session: McpSession | null, request: JsonRpcRequest): Promise<McpAnswer> {
    // A revision newer than the gateway's opens with server/discover:
    // "method not found" makes it fall back to initialize at once.
    if (session === null) {
      if (request.method === 'initialize') return this.#initialize(caller, request);
      throw new MethodNotFoundError(request.method);
    }
    switch (request.method) {
      case 'ping':
        return answer(jsonRpcResult(request.id, {}));
      case 'tools/list':
        return answer(jsonRpcResult(request.id, this.#listResult(caller, session.protocolVersion)));
      default:
        throw new MethodNotFoundError(request.method);
    }
  }

  /**
   * tools/list's result for the caller: in search mode, search_tools,
   * call_tool and the agent's pinned tools; else every tool it may call.
   */
  #listResult(caller: McpCaller, protocolVersion: ProtocolVersion) {
    const tools = this.#toolsFor(caller);
    const search = this.#options.toolSearch;
    if (search?.isActive(caller.agent, tools.length)) return search.listResult(tools, caller.agent, protocolVersion);
    return toolsListResult(tools, protocolVersion);
  }

  /**
   * What tools/list shows the caller, and what search_tools may
   * find for it: its agent's allowlist and scopes, and its token's.
   */
  #toolsFor(caller: McpCaller): readonly RegisteredTool[] {
    return toolsForAgent(this.#options.toolCall.registry(), {
      allowedTools: caller.agent.allowedTools,
      agentScopes: caller.agent.scopes,
      tokenScopes: caller.tokenScopes,
      canStepUp: caller.external !== undefined,
    });
  }

  /**
   * search_tools or call_tool for this caller. Outside search mode both are
   * ordinary names: the registry's tool, if it has one by that name (the
   * original request, not prepared: the call was prepared for the tool it wraps).
   */
  async #virtualCall(
    caller: McpCaller,
    protocolVersion: ProtocolVersion,
    request: JsonRpcRequest,
    virtual: VirtualCall,
    run: (request: JsonRpcRequest, prepared: boolean) => Promise<ToolCallReport>,
  ): Promise<ToolCallReport> {
    const search = this.#options.toolSearch!;
    const callable = this.#toolsFor(caller);
    if (!search.isActive(caller.agent, callable.length))
      return run(virtual.kind === 'call_tool' && virtual.ok ? virtual.original : request, false);
    if (virtual.kind === 'call_tool')
      return virtual.ok ? run(request, true) : { ok: false, error: virtual.error, ...NOTHING_LEARNT };
    try {
      const args = parseSearchArguments(request.params?.arguments);
      const names = new Set(callable.map((tool) => tool.definition.name));
      const result = await search.searchResult(args, (tool) => names.has(tool.definition.name), protocolVersion);
      return { ok: true, result, truncated: false, ...NOTHING_LEARNT, tool: SEARCH_TOOLS };
    } catch (error) {
      return { ok: false, error, ...NOTHING_LEARNT };
    }
  }

  /**
   * Opens a session bound to the agent; its id goes back in `Mcp-Session-Id`.
   * An agent at its session cap loses its least recently used session (the
   * store ends it; its next request answers 404, as an expired one does).
   */
  async #initialize(caller: McpCaller, request: JsonRpcRequest): Promise<McpAnswer> {
    const parsed = parseInitializeParams(request.params);
    const result = buildInitializeResult({
      requestedVersion: parsed.protocolVersion,
      serverInfo: this.#options.serverInfo,
    });
    const sessionId = this.#options.sessions.newSessionId(caller.agent.agentId);
    const createdAt = (this.#options.clock?.() ?? new Date()).toISOString();
    await this.#options.sessions.create(
      {
        sessionId,
        agentId: caller.agent.agentId,
        protocolVersion: result.protocolVersion,
        clientInfo: parsed.clientInfo,
        createdAt,
      },
      this.#options.sessionIdleMs,
      this.#maxSessions,
    );
    return { ...answer(jsonRpcResult(request.id, result)), sessionId };
  }

  /** The pipeline, in the call's trace; audited once when it ends. Never rejects. */
  async #toolCall(
    caller: McpCaller,
    scope: CallScope,
    request: JsonRpcRequest,
    record: ToolCallRecord,
    prepared: PreparedCall | null,
    virtual: VirtualCall | null,
  ): Promise<McpAnswer> {
    // Cancelled by the client's notifications/cancelled, or (without a resumable stream) by its leaving; without a
    // session, only by its leaving.
    const running =
      scope.sessionId === null
        ? cancelledByLeaving(caller.signal)
        : this.#running.start(scope.sessionId, request.id, caller.signal);
    // `isPrepared`: whether the call was prepared for the tool this request names.
    const pipeline = (called: JsonRpcRequest, isPrepared: boolean) => {
      const params = called.params ?? {};
      // The client's answers ride on the request it sent (call_tool's
      // own, when wrapped); the tool and arguments are the pipeline's.
      const confirm = this.#options.writeConfirmation?.gate(
        caller.agent,
        scope.sessionId === null
          ? { era: 'stateless', params: request.params ?? {} }
          : { era: 'session', protocolVersion: scope.protocolVersion },
      );
      if (virtual?.kind === 'call_tool' && isPrepared) record.cameThrough('call_tool');
      return callTool(
        this.#options.toolCall,
        {
          agent: caller.agent,
          tokenScopes: caller.tokenScopes,
          canStepUp: caller.external !== undefined,
          protocolVersion: scope.protocolVersion,
          signal: running.signal,
          keepAnswer: caller.keepAnswer,
          confirm,
        },
        { name: params.name, arguments: params.arguments },
        isPrepared ? prepared : null,
      );
    };
    const run = () =>
      virtual ? this.#virtualCall(caller, scope.protocolVersion, request, virtual, pipeline) : pipeline(request, true);
    let report: ToolCallReport;
    try {
      report = await record.run(run);
    } finally {
      running.done();
      prepared?.release();
    }
    const serverTiming = record.end(
      { agentId: caller.agent.agentId, sessionId: scope.sessionId, ...caller.external },
      report,
    );
    const reply = report.ok
      ? answer(jsonRpcResult(request.id, report.question ?? report.result))
      : this.#callFailure(request.id, report, scope.protocolVersion);
    return { ...reply, serverTiming };
  }

  /**
   * A failed tools/call: a tool error the model reads, when the catalogue says so and the client's revision allows it.
   */
  #callFailure(id: JsonRpcId, report: ToolCallFailure, version: ProtocolVersion): McpAnswer {
    const failure = describeError(report.error);
    if (this.#mcpDelivery && isToolError(failure, version)) {
      const result = buildToolErrorResult(toolErrorText(report), {
        code: failure.jsonRpcCode,
        kind: failure.code,
        httpStatus: failure.httpStatus,
        ...detailsOf(report.error),
      });
      return { kind: 'answer', message: jsonRpcResult(id, result), status: 200, failure };
    }
    return this.#failure(id, report.error);
  }

  #failure(id: JsonRpcId | null, error: unknown): McpAnswer {
    const failure = describeError(error);
    if (!failure.expected) this.#options.onUnexpectedError?.(error);
    const status = this.#mcpDelivery && failure.delivery !== 'http' ? 200 : failure.httpStatus;
    const challenge = bearerChallenge(error);
    return { kind: 'answer', message: jsonRpcErrorFrom(id, error), status, failure, ...(challenge && { challenge }) };
  }

  get #mcpDelivery(): boolean {
    return (this.#options.errorDelivery ?? 'mcp') === 'mcp';
  }
}

/**
 * The challenge of a refused credential: `invalid_token` once one was presented (RFC 6750 3.1), the scopes to ask for
 * when some are missing.
 */
function bearerChallenge(error: unknown): BearerChallenge | undefined {
  if (error instanceof InsufficientScopeError)
    return { error: 'insufficient_scope', scope: error.scopesToRequest.join(' ') };
  if (!(error instanceof UnauthorizedError)) return undefined;
  return error.reason === 'missing' ? {} : { error: 'invalid_token' };
}

/** Each tool's x-mcp-header marks, found once per registered tool (a reload registers new ones). */
const PARAM_HEADERS = new WeakMap<RegisteredTool, readonly ParamHeader[]>();

function paramHeadersFor(tool: RegisteredTool): readonly ParamHeader[] {
  let marks = PARAM_HEADERS.get(tool);
  if (marks === undefined) PARAM_HEADERS.set(tool, (marks = paramHeaderMarks(tool.inputSchema).headers));
  return marks;
}

/** A call of no session: only the client's leaving cancels it (it never stops being cancellable on its own). */
function cancelledByLeaving(clientGone: AbortSignal | undefined): { signal: AbortSignal; done(): void } {
  return { signal: clientGone ?? new AbortController().signal, done: () => undefined };
}

function answer(message: JsonRpcResponse): McpAnswer {
  return { kind: 'answer', message, status: 200 };
}

/** Invalid arguments are a tool error from 2025-11-25 on (SEP-1303); a JSON-RPC error before. */
function isToolError(failure: ErrorDescription, version: ProtocolVersion): boolean {
  if (failure.delivery !== 'tool-error') return false;
  return failure.code !== 'invalid-arguments' || isAtLeast(version, '2025-11-25');
}

/** What the model reads: what failed, and the downstream's own words when it gave any (already filtered and capped). */
function toolErrorText(report: ToolCallFailure): string {
  const { detail } = describeError(report.error);
  return report.downstreamAnswer ? `${detail}: ${report.downstreamAnswer}` : detail;
}

/**
 * The error's own details for programs (the downstream failure, the fields at fault); never the downstream's answer.
 */
function detailsOf(error: unknown): Record<string, unknown> {
  if (error instanceof InvalidInputError) return { fields: error.fields };
  const data = (error as { data?: unknown }).data;
  return typeof data === 'object' && data !== null ? { ...data } : {};
}

/** The id to answer with: a refused message's id too, when it is itself valid. */
function replyId(incoming: IncomingMessage): JsonRpcId | null {
  if (incoming.kind === 'request') return incoming.message.id;
  return incoming.kind === 'invalid' ? incoming.id : null;
}

/**
 * An answer sent after its stream started: the status line is already
 * sent, so the HTTP status it would have had travels in the error's `data`.
 */
export function streamedMessage(reply: McpAnswer): JsonRpcResponse {
  if (!reply.failure || !('error' in reply.message)) return reply.message;
  const { error } = reply.message;
  const httpStatus = reply.failure.httpStatus;
  const data = typeof error.data === 'object' && error.data !== null ? { ...error.data, httpStatus } : { httpStatus };
  return { ...reply.message, error: { ...error, data } };
}

/**
 * An answer refusing a request before it reached the service: the transport (method, media type, size) or a request
 * guard (origin, headers).
 */
export function transportFailure(error: unknown): McpAnswer {
  const failure = describeError(error);
  const challenge = bearerChallenge(error);
  return {
    kind: 'answer',
    message: jsonRpcErrorFrom(null, error),
    status: failure.httpStatus,
    failure,
    ...(challenge && { challenge }),
  };
}
