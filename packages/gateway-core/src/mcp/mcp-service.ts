import { randomBytes } from 'node:crypto';
import { bearerToken } from '../auth/bearer.js';
import { readVirtualCall, type VirtualCall } from '../catalog/search/search-mode.js';
import { InvalidRequestError, MethodNotFoundError, NotReadyError, StreamGoneError } from '../errors.js';
import { CallPreparation, type PreparedCall } from '../pipeline/prepared-call.js';
import { NOTHING_LEARNT } from '../pipeline/tool-call-report.js';
import { buildInitializeResult, parseInitializeParams } from '../protocol/initialize.js';
import { jsonRpcResult, parseJsonRpcBody, type IncomingMessage, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { ProtocolVersion } from '../protocol/protocol-version.js';
import { eraOf, type Era } from '../protocol/envelope.js';
import { checkParamHeaders, paramHeaderMarks, type ParamHeader } from '../protocol/param-headers.js';
import type { RegisteredTool } from '../tools/registry.js';
import { toolsListResult } from '../tools/listing.js';
import { loadTokenizer } from '../tokens/count.js';
import { judgedLater } from '../util/judged-later.js';
import { type McpCaller, type McpSession, toolsFor } from './mcp-caller.js';
import type {
  McpAnswer,
  McpCredentials,
  McpPost,
  McpReply,
  McpResume,
  McpResumeReply,
  McpSessionEnd,
} from './mcp-messages.js';
import { answer, FailureAnswers, replyId, streamedMessage } from './mcp-replies.js';
import type { McpServiceOptions } from './mcp-service-options.js';
import { McpToolCalls } from './mcp-tool-calls.js';
import { ResumableStreams } from './resumable-streams.js';
import { ResumeAdmission } from './resume-admission.js';
import { answerStateless, openListen, STATELESS_FEATURES, statelessMessage } from './stateless-requests.js';
import { RunningCalls } from './running-calls.js';
import { ANSWER_EVENT, parseEventId, StreamIds } from './stream-id.js';
import { claimSession, touchSession } from './session-claim.js';
import { ToolCallRecord } from './tool-call-record.js';

const DEFAULT_RESUME_WINDOW_MS = 120_000;
/**
 * A client normally holds one session per connection, and an agent is one
 * credential: 100 leaves room for a fleet of workers sharing one, while an
 * agent opening sessions in a loop holds at most 100 (about 40 KB in Redis).
 */
const DEFAULT_MAX_SESSIONS_PER_AGENT = 100;

/** Messages that are not requests or notifications have no envelope: the session era's, as before 2026-07-28. */
const SESSION_ERA: Era = { kind: 'session' };

/**
 * Who is asking and in which session (none for `initialize`), and a tools/call's pre-flight; or why they may not ask.
 */
type Admission =
  | { ok: true; caller: McpCaller; session: McpSession | null; prepared: PreparedCall | null }
  | { ok: false; error: unknown; agentId: string | null; tool: string | null };

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
  readonly #failures: FailureAnswers;
  readonly #toolCalls: McpToolCalls;

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
    this.#failures = new FailureAnswers(options);
    this.#toolCalls = new McpToolCalls({
      options,
      streams: this.#streams,
      streamIds: this.#streamIds,
      running: this.#running,
      failures: this.#failures,
    });
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
      return this.#failures.of(replyId(incoming), admission.error);
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
    if (record && session && call)
      return this.#toolCalls.pending(caller, session, call, record, admission.prepared, virtual);
    try {
      return await this.#answer(caller, session, incoming.message);
    } catch (error) {
      return this.#failures.of(incoming.message.id, error);
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
      return { ok: false, answer: this.#failures.of(null, error), refusal: error };
    }
  }

  /** Ends the caller's session: `ended`, or the refusal as an answer. */
  async end(request: McpSessionEnd): Promise<McpReply> {
    try {
      const session = await this.#ownSession(request);
      await this.#options.sessions.delete(session.record.sessionId);
      return { kind: 'ended' };
    } catch (error) {
      return this.#failures.of(null, error);
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
        (message) => message ?? streamedMessage(this.#failures.of(position.requestId, new StreamGoneError())),
      );
      return { kind: 'resumed', streamId: position.streamId, answer };
    } catch (error) {
      // Not a JSON-RPC request: every refusal with its HTTP status (a 429 says to retry later), never a 200 stream.
      const refusal = this.#failures.of(null, error);
      return { ...refusal, status: refusal.failure?.httpStatus ?? refusal.status };
    }
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
      const answer = this.#toolCalls.run(
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
      return this.#failures.of(request.id, error);
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
          : judgedLater(touchSession(this.#options, request.sessionId));
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
      const session = lookup ? claimSession(caller, await lookup, request.protocolVersion) : null;
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
    return claimSession(caller, await touchSession(this.#options, request.sessionId), request.protocolVersion);
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
    const tools = toolsFor(this.#options.toolCall.registry(), caller);
    const search = this.#options.toolSearch;
    if (search?.isActive(caller.agent, tools.length)) return search.listResult(tools, caller.agent, protocolVersion);
    return toolsListResult(tools, protocolVersion);
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
}

/** Each tool's x-mcp-header marks, found once per registered tool (a reload registers new ones). */
const PARAM_HEADERS = new WeakMap<RegisteredTool, readonly ParamHeader[]>();

function paramHeadersFor(tool: RegisteredTool): readonly ParamHeader[] {
  let marks = PARAM_HEADERS.get(tool);
  if (marks === undefined) PARAM_HEADERS.set(tool, (marks = paramHeaderMarks(tool.inputSchema).headers));
  return marks;
}
