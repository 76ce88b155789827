import { randomBytes } from 'node:crypto';
import type { AgentRecord, SessionRecord, SessionStore } from '../store/ports.js';
import { EarlyReservations, type EarlyReservation } from '../pipeline/early-reservation.js';
import { callTool, type ToolCallDeps, type ToolCallOutcome, type ToolCallTrace } from '../pipeline/tool-call.js';
import { toolsForAgent } from '../tools/access.js';
import { toolsListResult } from '../tools/listing.js';
import { InvalidRequestError, MethodNotFoundError, SessionNotFoundError } from './errors.js';
import { buildInitializeResult, parseInitializeParams, type InitializeResult, type ServerInfo } from './initialize.js';
import type { JsonRpcRequest } from './jsonrpc.js';
import { protocolVersionForRequest, type ProtocolVersion } from './protocol-version.js';

/** 32 base64url characters: 192 random bits. Anything else is not ours and skips the store. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export interface McpServiceOptions {
  sessions: SessionStore;
  sessionIdleMs: number;
  toolCall: ToolCallDeps;
  serverInfo: ServerInfo;
  clock?: () => Date;
}

/** The authenticated agent behind a request. */
export interface McpCaller {
  agent: AgentRecord;
  tokenScopes: readonly string[];
  signal?: AbortSignal;
}

/** Per-request extras of a tools/call. */
export interface McpCallOptions {
  trace?: ToolCallTrace;
  /** From `reserveAhead`: used by the budget step, or given back if the call ends before it. */
  reservedAhead?: EarlyReservation | null;
}

export interface McpSession {
  record: SessionRecord;
  /** The version this request speaks: the negotiated one, confirmed by the header. */
  protocolVersion: ProtocolVersion;
}

export type McpRequestOutcome =
  | { method: 'tools/call'; result: ToolCallOutcome['result']; call: ToolCallOutcome }
  | { method: string; result: unknown };

/**
 * MCP methods over the store-backed sessions (spec 3.2, 4.3). Transport
 * concerns (headers, SSE, HTTP status) stay in the HTTP layer; this decides
 * what each method means for an authenticated agent.
 */
export class McpService {
  readonly #options: McpServiceOptions;
  readonly #early: EarlyReservations;

  constructor(options: McpServiceOptions) {
    this.#options = options;
    const { budget, settlements, clock } = options.toolCall;
    this.#early = new EarlyReservations({ ledger: budget, settlements, clock });
  }

  /**
   * Starts the budget reservation of a tools/call before its checks, so it
   * shares the authentication's store round trip. Null when there is nothing
   * to start: a tool the registry does not know, or an agent not seen yet.
   * Whatever is started is used or given back by `handle`.
   */
  reserveAhead(agentId: string, params: unknown): EarlyReservation | null {
    const name = typeof params === 'object' && params !== null ? (params as { name?: unknown }).name : undefined;
    const tool = typeof name === 'string' ? this.#options.toolCall.registry().get(name) : undefined;
    return tool === undefined ? null : this.#early.start(agentId, tool.definition.maxResponseTokens);
  }

  /** Opens a session bound to the agent; the id goes back in `Mcp-Session-Id`. */
  async initialize(caller: McpCaller, params: unknown): Promise<{ sessionId: string; result: InitializeResult }> {
    const parsed = parseInitializeParams(params);
    const result = buildInitializeResult({ requestedVersion: parsed.protocolVersion, serverInfo: this.#options.serverInfo });
    const sessionId = randomBytes(24).toString('base64url');
    await this.#options.sessions.create(
      {
        sessionId,
        agentId: caller.agent.agentId,
        protocolVersion: result.protocolVersion,
        clientInfo: parsed.clientInfo,
        createdAt: (this.#options.clock?.() ?? new Date()).toISOString(),
      },
      this.#options.sessionIdleMs,
    );
    return { sessionId, result };
  }

  /**
   * The caller's live session, its idle expiry extended. Missing header: 400;
   * unknown, expired or another agent's: 404 alike.
   */
  async resumeSession(caller: McpCaller, sessionId: string | undefined, versionHeader: string | undefined): Promise<McpSession> {
    return this.claimSession(caller, await this.touchSession(sessionId), versionHeader);
  }

  /**
   * The first half of `resumeSession`, which needs no caller: it can run
   * alongside authentication, so both store reads share one round trip.
   * Its result means nothing until `claimSession` checks the owner.
   */
  async touchSession(sessionId: string | undefined): Promise<SessionRecord | null> {
    if (sessionId === undefined || sessionId === '') {
      throw new InvalidRequestError('Mcp-Session-Id header is required: call initialize first');
    }
    if (!SESSION_ID_PATTERN.test(sessionId)) return null;
    return this.#options.sessions.touch(sessionId, this.#options.sessionIdleMs);
  }

  /** The second half: the session must exist and belong to the authenticated caller. */
  claimSession(caller: McpCaller, record: SessionRecord | null, versionHeader: string | undefined): McpSession {
    if (record === null || record.agentId !== caller.agent.agentId) throw new SessionNotFoundError();
    const protocolVersion = protocolVersionForRequest(versionHeader, record.protocolVersion as ProtocolVersion);
    return { record, protocolVersion };
  }

  async endSession(session: McpSession): Promise<void> {
    await this.#options.sessions.delete(session.record.sessionId);
  }

  /** A request inside a session (anything but initialize). */
  async handle(caller: McpCaller, session: McpSession, request: JsonRpcRequest, options: McpCallOptions = {}): Promise<McpRequestOutcome> {
    this.#early.remember(caller.agent);
    try {
      return await this.#handle(caller, session, request, options);
    } finally {
      // Taken by the budget step, this does nothing; otherwise the call ended first.
      options.reservedAhead?.abandon();
    }
  }

  async #handle(caller: McpCaller, session: McpSession, request: JsonRpcRequest, options: McpCallOptions): Promise<McpRequestOutcome> {
    switch (request.method) {
      case 'ping':
        return { method: 'ping', result: {} };
      case 'tools/list': {
        const tools = toolsForAgent(this.#options.toolCall.registry(), {
          allowedTools: caller.agent.allowedTools,
          tokenScopes: caller.tokenScopes,
        });
        return { method: 'tools/list', result: toolsListResult(tools, session.protocolVersion) };
      }
      case 'tools/call': {
        const params = request.params ?? {};
        const call = await callTool(
          this.#options.toolCall,
          {
            agent: caller.agent,
            tokenScopes: caller.tokenScopes,
            protocolVersion: session.protocolVersion,
            signal: caller.signal,
            trace: options.trace,
            reservedAhead: options.reservedAhead,
          },
          { name: params.name, arguments: params.arguments },
        );
        return { method: 'tools/call', result: call.result, call };
      }
      case 'initialize':
        throw new InvalidRequestError('This session is already initialized');
      default:
        throw new MethodNotFoundError(request.method);
    }
  }
}
