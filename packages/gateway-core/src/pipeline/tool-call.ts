import { SpanKind } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import { argsDigest } from '../audit/digest.js';
import type { CacheTier } from '../store/audit-records.js';
import type { CachePeek, SemanticCache } from '../cache/semantic-cache.js';
import { BudgetExhaustedError, ClientGoneError, DownstreamCallError, DownstreamError } from '../errors.js';
import type { Forwarder } from '../forward/forwarder.js';
import type { ProtocolVersion } from '../protocol/protocol-version.js';
import { buildToolCallResult, buildToolCallResultFromJson, type ToolCallResult } from '../protocol/tool-result.js';
import type { AgentRecord, BudgetLedger, RateLimiter, Reservation } from '../store/ports.js';
import { nextUtcMidnight } from '../time.js';
import { defaultAdmission, type BudgetAdmission } from './budget-admission.js';
import type { EarlyReservation } from './early-reservation.js';
import { toolNamed, type PreparedCall } from './prepared-call.js';
import { checkRateLimit } from './rate-limit-step.js';
import type { Settlements } from './settlement-queue.js';
import { capJson, capResponse, type CappedResponse } from '../tokens/cap.js';
import type { AnswerSource, LargeAnswers } from '../answer/large-answers.js';
import { processAnswer } from '../answer/process-answer.js';
import { inSpan, SPAN_ATTRIBUTES as ATTR, SPAN_NAMES } from '../tracing.js';
import { authorizeTool } from '../tools/access.js';
import { validateToolArguments } from '../tools/arguments.js';
import type { InputRequiredResult } from '../protocol/input-required.js';
import type { ToolDefinition } from '../tools/definition.js';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.js';

/** Filters a downstream response before anyone sees, counts, caches or logs it. */
export interface ResponseFilter {
  filter(toolName: string, value: unknown): { value: unknown };
}

export interface ToolCallDeps {
  /** The current registry; read per call so a refresh never disturbs calls in flight. */
  registry: () => ToolRegistry;
  budget: BudgetLedger;
  /** Where agents' rate limits (`AgentRecord.rateLimit`) are counted; absent, they are not enforced. */
  rateLimiter?: RateLimiter;
  /**
   * Given, the reservation is settled (or released) after the reply instead
   * of before it: one store round trip less for the agent to wait for.
   * Absent, the call waits for the ledger.
   */
  settlements?: Settlements;
  /** Waits for calls in flight when they hold what is left of a budget; absent, one per ledger with its defaults. */
  admission?: BudgetAdmission;
  forwarder: Forwarder;
  privacy?: ResponseFilter;
  /**
   * Where answers above its threshold are decoded, filtered and capped (a
   * worker thread), so their JSON never holds the event loop. Absent, a
   * large answer is processed in-thread like any other.
   */
  largeAnswers?: LargeAnswers;
  cache?: SemanticCache;
  /**
   * HMAC key for the audit digest of the arguments. Keyed, because a plain
   * hash of a low-entropy argument (a customer id, an SSN) can be reversed
   * by trying every value.
   */
  argsDigestKey?: Buffer;
  clock?: () => Date;
}

/**
 * Whether a call must wait for the user's confirmation: null at once for a call that needs none (no await on
 * the hot path), else a promise of null to go on or of the question to answer with.
 */
export type ConfirmationGate = (tool: ToolDefinition, args: unknown) => Promise<InputRequiredResult | null> | null;

export interface ToolCallContext {
  agent: AgentRecord;
  /** Scopes of the token presented (contract 5 rule 6); a required scope must also be in `agent.scopes`. */
  tokenScopes: readonly string[];
  /** The token is an OAuth issuer's, whose client may step up to more scopes (see `ToolCaller`). */
  canStepUp?: boolean;
  protocolVersion: ProtocolVersion;
  signal?: AbortSignal;
  /**
   * Called with an answer before it is charged, when its delivery is not the
   * reply's alone (a resumable stream): false means nobody will read it (the
   * client left and the store refused to keep it for a resume), so it is not
   * charged and the call ends client-gone: kept or not charged, never both
   * lost and charged.
   */
  keepAnswer?: (result: ToolCallResult) => Promise<boolean>;
  /**
   * Write confirmation (mcp/write-confirmation.ts), run once the call is authorized and its arguments
   * valid: an InputRequiredResult ends the call there, before anything is rate-limited, reserved or sent.
   */
  confirm?: ConfirmationGate;
}

export interface ToolCallParams {
  name: unknown;
  arguments?: unknown;
}

/** What the audit trail needs of a call, whichever way it ended; null where the call never got that far. */
export interface ToolCallFacts {
  /** The tool called, once the registry knows the name (any other name is caller input, never recorded). */
  tool: string | null;
  /** The downstream serving that tool, when the registry says which (see `ToolOrigin`). */
  downstream?: string;
  /**
   * Set once the call is sent to the downstream: the id its gateway assertion names (`call_id`), whatever the retries.
   */
  callId?: string;
  argsDigest: string | null;
  cacheTier: CacheTier | null;
  downstreamStatus: number | null;
  downstreamMs: number | null;
  tokensCharged: number;
  /**
   * What the downstream answered with its error status, privacy-filtered and
   * capped like any answer (and, like a failed call, not charged), as text;
   * null when the call did not fail that way or the answer was empty.
   */
  downstreamAnswer: string | null;
}

export interface ToolCallSuccess extends ToolCallFacts {
  ok: true;
  result: ToolCallResult;
  /**
   * Set when the call waits for the user's confirmation (MCP 2026-07-28): the question to answer with
   * instead of `result` (then empty). Nothing was sent, reserved or charged.
   */
  question?: InputRequiredResult;
  truncated: boolean;
}

export interface ToolCallFailure extends ToolCallFacts {
  ok: false;
  /** A GatewayError of the catalogue, or an unexpected error. */
  error: unknown;
}

/** How one tools/call ended: never thrown, so its facts reach the audit trail either way. */
export type ToolCallReport = ToolCallSuccess | ToolCallFailure;

/** The filtered downstream answer as JSON text, and where it came from. */
interface Answer {
  value: unknown;
  /**
   * `JSON.stringify(value)` when it is at hand already (a cached answer's
   * stored text, an answer serialized for the cache): the cap starts from it,
   * so an answer is serialized once.
   */
  text?: string;
  /** A large answer comes capped already, its value never parsed on this thread. */
  capped?: CappedResponse;
  /** A cached answer's `text`, not parsed: `value` is parsed from it only if the cap has to cut it. */
  unparsed?: true;
  cacheTier: CacheTier | null;
  downstreamStatus: number | null;
  downstreamMs: number | null;
}

/**
 * One tools/call after authentication and session checks (docs/reference/contract.md,
 * the pipeline): authorize → validate arguments → rate limit → reserve budget → cache
 * lookup → forward (breaker, retries, timeout) → privacy filter → cap to what
 * was reserved → settle. Reads top-down; each step throws the typed error of
 * the catalogue, and the reservation is released on every failure. Each step
 * runs in its own trace span (a no-op unless an OpenTelemetry SDK is
 * registered). The report says how the call ended and what was learnt.
 * `prepared`, when given, is this very call's pre-flight: the tool it
 * resolved stands for `params.name`, and its steps use what it started.
 * Its caller releases it once the call ends.
 */
export async function callTool(
  deps: ToolCallDeps,
  caller: ToolCallContext,
  params: ToolCallParams,
  prepared?: PreparedCall | null,
): Promise<ToolCallReport> {
  const facts: ToolCallFacts = {
    tool: null,
    argsDigest: null,
    cacheTier: null,
    downstreamStatus: null,
    downstreamMs: null,
    tokensCharged: 0,
    downstreamAnswer: null,
  };
  try {
    return { ok: true, ...(await runPipeline(deps, caller, params, facts, prepared)) };
  } catch (error) {
    // However the cancellation surfaced on the way (an aborted forward, a wait cut short), it is the client's leaving.
    return { ok: false, error: caller.signal?.aborted ? asClientGone(caller.signal, error) : error, ...facts };
  }
}

/** The `result` of a call that asked a question instead (see `ToolCallSuccess.question`). */
const NO_RESULT: ToolCallResult = { content: [{ type: 'text', text: '' }] };

/**
 * The client's leaving (or its cancel, which says so in the signal's reason), with what it interrupted as the cause.
 */
function asClientGone(signal: AbortSignal, interrupted?: unknown): ClientGoneError {
  if (interrupted instanceof ClientGoneError) return interrupted;
  const reason: unknown = signal.reason;
  const message = reason instanceof ClientGoneError ? reason.message : undefined;
  return new ClientGoneError(message, interrupted === undefined ? undefined : { cause: interrupted });
}

async function runPipeline(
  deps: ToolCallDeps,
  caller: ToolCallContext,
  params: ToolCallParams,
  facts: ToolCallFacts,
  prepared: PreparedCall | null | undefined,
): Promise<Omit<ToolCallSuccess, 'ok'>> {
  // Known before the access check, so a refusal is audited with what was attempted;
  // only a name the registry knows, since any other is caller input. Looked up once: by the preparation, if any.
  const known = prepared ? prepared.tool : toolNamed(deps.registry(), params.name);
  if (known !== undefined) {
    facts.tool = known.definition.name;
    if (known.definition.downstream !== undefined) facts.downstream = known.definition.downstream;
  }
  facts.argsDigest = argsDigest(
    params.arguments ?? {},
    deps.argsDigestKey,
    known !== undefined && deps.cache?.isCacheable(known.definition),
  );
  const tool = inSpan(SPAN_NAMES.authorize, (span) => {
    const authorized = authorizeTool(known, params.name, {
      allowedTools: caller.agent.allowedTools,
      agentScopes: caller.agent.scopes,
      tokenScopes: caller.tokenScopes,
      canStepUp: caller.canStepUp,
    });
    span.setAttribute(ATTR.tool, authorized.definition.name);
    return authorized;
  });
  const args = inSpan(SPAN_NAMES.validate, () => validateToolArguments(tool, params.arguments ?? {}));
  const asking = caller.confirm?.(tool.definition, params.arguments ?? {});
  const question = asking ? await asking : null;
  if (question !== null) return { result: NO_RESULT, question, truncated: false, ...facts };
  await checkRateLimit({
    agent: caller.agent,
    takenAhead: prepared?.rateTake,
    limiter: deps.rateLimiter,
    clock: () => deps.clock?.() ?? new Date(),
  });
  const reservation = await inSpan(SPAN_NAMES.budgetReserve, async (span) => {
    const reserved = await reserveBudget(deps, caller, tool.definition.maxResponseTokens, prepared?.reservation);
    span.setAttribute(ATTR.tokensReserved, reserved.granted);
    return reserved;
  });
  try {
    // Read before the downstream is asked, so an answer is never filed under a later write's generation.
    const peeked = prepared?.cachePeek;
    const generation = deps.cache?.isCacheable(tool.definition) ? await deps.cache.generation(peeked) : 0;
    const answer =
      (await fromCache(deps, tool, args, caller.agent.agentId, generation, reservation.granted, peeked)) ??
      (await fromDownstream(
        deps,
        tool,
        args,
        generation,
        facts,
        caller.signal,
        caller.agent.agentId,
        grantedScopes(caller),
        reservation.granted,
      ));
    Object.assign(facts, {
      cacheTier: answer.cacheTier,
      downstreamStatus: answer.downstreamStatus,
      downstreamMs: answer.downstreamMs,
    });
    const capped = inSpan(SPAN_NAMES.cap, (span) => {
      const result = answer.capped ?? capAnswer(answer, reservation.granted);
      span.setAttribute(ATTR.truncated, result.truncated);
      return result;
    });
    // Nobody will read this answer (the client left before it was ready): nothing is charged for it.
    if (caller.signal?.aborted) throw asClientGone(caller.signal);
    const result =
      answer.unparsed && !capped.truncated
        ? buildToolCallResultFromJson(capped.text, caller.protocolVersion)
        : buildToolCallResult(capped.text, caller.protocolVersion, parsedValue(deps, answer, capped));
    if (caller.keepAnswer && !(await caller.keepAnswer(result))) {
      throw new ClientGoneError('The client left and its answer could not be kept for a resume: nothing was charged');
    }
    await inSpan(SPAN_NAMES.budgetSettle, async (span) => {
      span.setAttribute(ATTR.tokensCharged, capped.tokens);
      if (deps.settlements) deps.settlements.settle(reservation, capped.tokens);
      else await deps.budget.settle(reservation, capped.tokens);
    });
    facts.tokensCharged = capped.tokens;
    return { result, truncated: capped.truncated, ...facts };
  } catch (error) {
    if (deps.settlements) deps.settlements.release(reservation);
    else await deps.budget.release(reservation).catch(() => undefined);
    if (error instanceof DownstreamCallError && error.answer !== undefined)
      facts.downstreamAnswer = readableAnswer(deps, tool, error.answer, reservation.granted);
    throw error;
  }
}

/**
 * The answer within `granted` tokens. A cached answer within it is sent as
 * its stored text, as `capResponse` would return it, without parsing it: its
 * value is parsed only to be cut.
 */
function capAnswer(answer: Answer, granted: number): CappedResponse {
  return answer.unparsed
    ? capJson(answer.text!, granted, () => parsed(answer))
    : capResponse(answer.value, granted, answer.text);
}

/** The answer's value, parsed from its text if it came unparsed from the cache. */
function parsed(answer: Answer): unknown {
  if (answer.unparsed) {
    answer.value = JSON.parse(answer.text!);
    answer.unparsed = undefined;
  }
  return answer.value;
}

/**
 * What structuredContent is built from: uncut, the text is the answer's own
 * JSON, so the value is reused; cut, the (capped) text is parsed. A large
 * answer's value never reached this thread: its text is parsed when it is
 * small (a cut one mostly is), and is sent alone (null) when parsing and
 * serializing it again would hold the event loop (docs/reference/behaviour.md).
 */
function parsedValue(
  deps: ToolCallDeps,
  answer: Answer,
  capped: CappedResponse,
): { value: unknown } | null | undefined {
  if (answer.capped === undefined) return capped.truncated ? undefined : { value: answer.value ?? null };
  return capped.text.length > (deps.largeAnswers?.thresholdBytes ?? Number.POSITIVE_INFINITY) ? null : undefined;
}

/** The downstream's error answer as the model may read it: through the privacy filter, within the call's cap. */
function readableAnswer(deps: ToolCallDeps, tool: RegisteredTool, answer: unknown, granted: number): string {
  const value = deps.privacy ? deps.privacy.filter(tool.definition.name, answer).value : answer;
  const capped = capResponse(value, granted);
  // A plain-text answer reads better as itself than as a JSON string.
  return typeof value === 'string' && !capped.truncated ? value : capped.text;
}

/** A cached answer is already filtered; it is charged like a call, after the budget check. */
async function fromCache(
  deps: ToolCallDeps,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  agentId: string,
  generation: number | null,
  granted: number,
  peeked: CachePeek | null | undefined,
): Promise<Answer | null> {
  const cache = deps.cache;
  if (!cache) return null;
  const hit = await inSpan(SPAN_NAMES.cacheLookup, async (span) => {
    const found = await cache.lookup(tool.definition, args, agentId, generation, peeked);
    span.setAttribute(ATTR.cacheResult, found?.tier ?? 'miss');
    return found;
  });
  if (!hit) return null;
  const found = { cacheTier: hit.tier, downstreamStatus: null, downstreamMs: null };
  if (deps.largeAnswers && hit.text.length > deps.largeAnswers.thresholdBytes) {
    const processed = await processLarge(deps, tool, { kind: 'cached', text: hit.text }, granted, false);
    return { value: undefined, capped: processed, ...found };
  }
  // The stored text is what serializing its value gives: the cap and the answer reuse it, parsing it only to cut it.
  return { value: undefined, text: hit.text, unparsed: true, ...found };
}

async function fromDownstream(
  deps: ToolCallDeps,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  generation: number | null,
  facts: ToolCallFacts,
  signal: AbortSignal | undefined,
  agentId: string,
  scopes: readonly string[],
  granted = Number.POSITIVE_INFINITY,
): Promise<Answer> {
  const started = performance.now();
  const response = await inSpan(
    SPAN_NAMES.forward,
    async (span) => {
      span.setAttribute(ATTR.httpMethod, tool.definition.httpMethod);
      // One call id for the call, whatever the retries: the downstream's assertion names it, the audit record too.
      facts.callId = randomUUID();
      const answered = await deps.forwarder.forward(tool.definition, args, signal, {
        agentId,
        scopes,
        callId: facts.callId,
      });
      span.setAttribute(ATTR.httpStatus, answered.status);
      return answered;
    },
    SpanKind.CLIENT,
  ).catch((error: unknown) => {
    // A failed call still spent time at the downstream, and may have its answer's status.
    if (error instanceof DownstreamError) {
      facts.downstreamMs = performance.now() - started;
      if (error instanceof DownstreamCallError && error.data.reason === 'status')
        facts.downstreamStatus = error.data.downstreamStatus;
    }
    throw error;
  });
  const cacheable = deps.cache?.isCacheable(tool.definition) ?? false;
  const answered = { cacheTier: null, downstreamStatus: response.status, downstreamMs: response.durationMs };
  let answer: Answer;
  let cacheText: () => string | undefined;
  if (response.raw) {
    const processed = await processLarge(deps, tool, { kind: 'downstream', ...response.raw }, granted, cacheable);
    const { cacheText: text, ...capped } = processed;
    answer = { value: undefined, capped, ...answered };
    cacheText = () => text;
  } else {
    const privacy = deps.privacy;
    const value = privacy
      ? inSpan(SPAN_NAMES.privacy, () => privacy.filter(tool.definition.name, response.body).value)
      : response.body;
    // Serialized once, when the cache needs the text too: the cap starts from the same text.
    const text = cacheable ? (JSON.stringify(value) ?? 'null') : undefined;
    answer = { value, text, ...answered };
    cacheText = () => text;
  }
  if (cacheable) {
    // Stored off the hot path: embedding the arguments must not delay this answer.
    void deps.cache!.store(tool.definition, args, agentId, cacheText()!, undefined, generation);
  } else if (deps.cache && tool.definition.allowWrite) {
    // The downstream's data may have changed: earlier answers must not be served again.
    await deps.cache.invalidate();
  }
  return answer;
}

/** The scopes this call carries: in the token and still held by the agent (what the access check allows). */
function grantedScopes(caller: ToolCallContext): string[] {
  return caller.tokenScopes.filter((scope) => caller.agent.scopes.includes(scope));
}

/**
 * A large answer decoded, filtered and capped in one step, by `largeAnswers`
 * (off the event loop) or, without it, here. Its cap is the call's grant.
 */
function processLarge(
  deps: ToolCallDeps,
  tool: RegisteredTool,
  source: AnswerSource,
  granted: number,
  wantCacheText: boolean,
) {
  const task = { toolName: tool.definition.name, source, maxTokens: granted, wantCacheText };
  return inSpan(SPAN_NAMES.privacy, async () =>
    deps.largeAnswers ? deps.largeAnswers.process(task) : processAnswer(task, deps.privacy),
  );
}

/**
 * Holds up to the tool's cap, or whatever is left today when that is less
 * (the response is then cut to fit): an agent is never charged past its budget.
 * A reservation started early (`PreparedCall`) is used when it was sized on the same budget and cap.
 * When what is left is held by calls in flight, the call waits for them
 * (`BudgetAdmission`); it is refused only when the budget is spent, or still
 * held when the wait runs out.
 */
async function reserveBudget(
  deps: ToolCallDeps,
  caller: ToolCallContext,
  maxResponseTokens: number,
  early: EarlyReservation | null | undefined,
): Promise<Reservation> {
  const { agent } = caller;
  const clock = () => deps.clock?.() ?? new Date();
  const admission = deps.admission ?? defaultAdmission(deps.budget);
  const admitted = await admission.admit({
    agentId: agent.agentId,
    dailyBudget: agent.dailyTokenBudget,
    wanted: maxResponseTokens,
    first: await early?.take(agent, maxResponseTokens),
    signal: caller.signal,
    clock,
  });
  if (admitted.ok) return admitted.reservation;
  if (admitted.reason === 'cancelled')
    throw new DownstreamCallError('The call was cancelled while it waited for budget', { reason: 'aborted' });
  const now = clock();
  const resetsAt = nextUtcMidnight(now).toISOString();
  const state =
    admitted.reason === 'held'
      ? `has no tokens free: what is left is held by calls in flight (waited ${Math.round(admitted.waitedMs)} ms ` +
        `for them to settle)`
      : 'is exhausted';
  throw new BudgetExhaustedError(
    `Daily token budget of ${agent.dailyTokenBudget} tokens ${state} (code -32029); it resets at ${resetsAt}`,
    resetsAt,
    {
      dailyTokenBudget: agent.dailyTokenBudget,
      now,
    },
  );
}
