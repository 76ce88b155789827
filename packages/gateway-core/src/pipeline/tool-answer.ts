// Where a call's answer comes from (the cache or the downstream) and how it is cut to what was reserved.
import { SpanKind } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import type { CachePeek } from '../cache/semantic-cache.js';
import type { CacheTier } from '../store/audit-records.js';
import { DownstreamCallError, DownstreamError } from '../errors.js';
import { capJson, capResponse, type CappedResponse } from '../tokens/cap.js';
import type { AnswerSource } from '../answer/large-answers.js';
import { processAnswer } from '../answer/process-answer.js';
import { inSpan, SPAN_ATTRIBUTES as ATTR, SPAN_NAMES } from '../tracing.js';
import type { RegisteredTool } from '../tools/registry.js';
import type { ToolCallDeps } from './tool-call-deps.js';
import type { ToolCallFacts } from './tool-call-report.js';

/** The filtered downstream answer as JSON text, and where it came from. */
export interface Answer {
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
 * The answer within `granted` tokens. A cached answer within it is sent as
 * its stored text, as `capResponse` would return it, without parsing it: its
 * value is parsed only to be cut.
 */
export function capAnswer(answer: Answer, granted: number): CappedResponse {
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
export function parsedValue(
  deps: ToolCallDeps,
  answer: Answer,
  capped: CappedResponse,
): { value: unknown } | null | undefined {
  if (answer.capped === undefined) return capped.truncated ? undefined : { value: answer.value ?? null };
  return capped.text.length > (deps.largeAnswers?.thresholdBytes ?? Number.POSITIVE_INFINITY) ? null : undefined;
}

/** The downstream's error answer as the model may read it: through the privacy filter, within the call's cap. */
export function readableAnswer(deps: ToolCallDeps, tool: RegisteredTool, answer: unknown, granted: number): string {
  const value = deps.privacy ? deps.privacy.filter(tool.definition.name, answer).value : answer;
  const capped = capResponse(value, granted);
  // A plain-text answer reads better as itself than as a JSON string.
  return typeof value === 'string' && !capped.truncated ? value : capped.text;
}

/** A cached answer is already filtered; it is charged like a call, after the budget check. */
export async function fromCache(
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

export async function fromDownstream(
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
