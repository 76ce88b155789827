// A tools/call from the MCP side: its cancellation, its resumable stream, search mode's
// search_tools and call_tool, and its one audit record, ended with its answer.
import type { VirtualCall } from '../catalog/search/search-mode.js';
import { parseSearchArguments, SEARCH_TOOLS } from '../catalog/search/virtual-tools.js';
import type { PreparedCall } from '../pipeline/prepared-call.js';
import { callTool } from '../pipeline/tool-call.js';
import { NOTHING_LEARNT, type ToolCallReport } from '../pipeline/tool-call-report.js';
import { jsonRpcResult, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { isAtLeast, type ProtocolVersion } from '../protocol/protocol-version.js';
import type { ToolCallResult } from '../protocol/tool-result.js';
import { type CallScope, type McpCaller, type McpSession, toolsFor } from './mcp-caller.js';
import type { McpAnswer, McpReply } from './mcp-messages.js';
import { answer, type FailureAnswers, streamedMessage } from './mcp-replies.js';
import type { McpServiceOptions } from './mcp-service-options.js';
import type { ResumableStreams } from './resumable-streams.js';
import type { RunningCalls } from './running-calls.js';
import type { StreamIds } from './stream-id.js';
import type { ToolCallRecord } from './tool-call-record.js';

/** What a tools/call uses of the MCP service: its options, and the parts it shares with the service. */
export interface McpToolCallParts {
  options: McpServiceOptions;
  streams: ResumableStreams | null;
  streamIds: StreamIds;
  running: RunningCalls;
  failures: FailureAnswers;
}

/** The tools/calls of one MCP service, from admission to their answer. Never rejects. */
export class McpToolCalls {
  readonly #options: McpServiceOptions;
  readonly #streams: ResumableStreams | null;
  readonly #streamIds: StreamIds;
  readonly #running: RunningCalls;
  readonly #failures: FailureAnswers;

  constructor(parts: McpToolCallParts) {
    this.#options = parts.options;
    this.#streams = parts.streams;
    this.#streamIds = parts.streamIds;
    this.#running = parts.running;
    this.#failures = parts.failures;
  }

  /**
   * A tools/call under way. From 2025-03-26 (when MCP made streams
   * resumable) and with a stream store, it gets a stream id, and a client
   * that leaves no longer cancels it: its answer is kept for a resume.
   */
  pending(
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
      return { kind: 'pending', answer: this.run(caller, scope, request, record, prepared, virtual) };
    }
    const streamId = this.#streamIds.issue(request.id, session.record.sessionId);
    const keeper = streams.keeper(streamId, session.record.sessionId, caller.signal);
    const keepAnswer = (result: ToolCallResult) => keeper.keepCharged(jsonRpcResult(request.id, result));
    const answer = this.run({ ...caller, signal: undefined, keepAnswer }, scope, request, record, prepared, virtual);
    keeper.keepIfLost(answer.then(streamedMessage));
    return { kind: 'pending', answer, streamId, streamStarted: keeper.streamStarted };
  }

  /** The pipeline, in the call's trace; audited once when it ends. Never rejects. */
  async run(
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
      : this.#failures.ofCall(request.id, report, scope.protocolVersion);
    return { ...reply, serverTiming };
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
    const callable = toolsFor(this.#options.toolCall.registry(), caller);
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
}

/** A call of no session: only the client's leaving cancels it (it never stops being cancellable on its own). */
function cancelledByLeaving(clientGone: AbortSignal | undefined): { signal: AbortSignal; done(): void } {
  return { signal: clientGone ?? new AbortController().signal, done: () => undefined };
}
