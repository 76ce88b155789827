import { argsDigest } from '../audit/digest.js';
import { BudgetExhaustedError, ClientGoneError, DownstreamCallError } from '../errors.js';
import { buildToolCallResult, buildToolCallResultFromJson, type ToolCallResult } from '../protocol/tool-result.js';
import type { Reservation } from '../store/ports.js';
import { nextUtcMidnight } from '../time.js';
import { defaultAdmission } from './budget-admission.js';
import type { EarlyReservation } from './early-reservation.js';
import { toolNamed, type PreparedCall } from './prepared-call.js';
import { checkRateLimit } from './rate-limit-step.js';
import { inSpan, SPAN_ATTRIBUTES as ATTR, SPAN_NAMES } from '../tracing.js';
import { authorizeTool } from '../tools/access.js';
import { validateToolArguments } from '../tools/arguments.js';
import type { ToolCallContext, ToolCallDeps, ToolCallParams } from './tool-call-deps.js';
import { NOTHING_LEARNT, type ToolCallFacts, type ToolCallReport, type ToolCallSuccess } from './tool-call-report.js';
import { capAnswer, fromCache, fromDownstream, parsedValue, readableAnswer } from './tool-answer.js';

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
  // Filled in as the steps learn them: what a failure reports too.
  const facts: ToolCallFacts = { ...NOTHING_LEARNT };
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

/** The scopes this call carries: in the token and still held by the agent (what the access check allows). */
function grantedScopes(caller: ToolCallContext): string[] {
  return caller.tokenScopes.filter((scope) => caller.agent.scopes.includes(scope));
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
