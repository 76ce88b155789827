import { describe, expect, it } from 'vitest';
import type { AnswerTask, LargeAnswers, ProcessedAnswer } from '../answer/large-answers.js';
import { processAnswer } from '../answer/process-answer.js';
import type { Forwarder, ForwardResult } from '../forward/forwarder.js';
import { createPrivacyFilter } from '../privacy/filter.js';
import { createMemoryStore } from '../store/memory/index.js';
import { callToolOrThrow as callTool } from '../testing/call-tool.js';
import { getCustomer, testAgent } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';
import type { ToolCallContext, ToolCallDeps } from './tool-call-deps.js';

const NOW = new Date('2025-05-01T12:00:00Z');
/** The same tool with a cap large enough to let a large answer through uncut. */
const getCustomerUncapped = { ...getCustomer, name: 'getCustomerUncapped', maxResponseTokens: 1_000_000 };
const { registry } = buildToolRegistry([getCustomer, getCustomerUncapped]);
const THRESHOLD = 10_000;
const privacy = createPrivacyFilter();

/** Runs tasks in-thread, recording them: stands in for the worker pool. */
function recordingAnswers(): LargeAnswers & { tasks: AnswerTask[] } {
  const tasks: AnswerTask[] = [];
  return {
    thresholdBytes: THRESHOLD,
    tasks,
    async process(task): Promise<ProcessedAnswer> {
      tasks.push(task);
      return processAnswer(task, privacy);
    },
  };
}

/** A forwarder that hands answers over `THRESHOLD` bytes back raw, as the HttpForwarder does with largeAnswerBytes. */
function forwarderOf(value: unknown): Forwarder {
  return {
    async forward(): Promise<ForwardResult> {
      const bytes = Buffer.from(JSON.stringify(value));
      if (bytes.length <= THRESHOLD) return { status: 200, headers: {}, body: value, durationMs: 1 };
      return {
        status: 200,
        headers: {},
        body: undefined,
        raw: { bytes, contentType: 'application/json' },
        durationMs: 1,
      };
    },
  };
}

function deps(value: unknown, largeAnswers: LargeAnswers | undefined): ToolCallDeps {
  return {
    registry: () => registry,
    budget: createMemoryStore().budget,
    forwarder: forwarderOf(value),
    privacy,
    largeAnswers,
    clock: () => NOW,
  };
}

const caller: ToolCallContext = {
  agent: testAgent({ dailyTokenBudget: 10_000_000 }, NOW),
  tokenScopes: [],
  protocolVersion: '2025-06-18',
};
const people = (count: number) => ({
  people: Array.from({ length: count }, (_, id) => ({ id, email: `p${id}@example.com` })),
});

describe('callTool with large answers', () => {
  it('keeps an answer within the threshold in-thread: the pool is never asked', async () => {
    const answers = recordingAnswers();
    const outcome = await callTool(deps(people(3), answers), caller, { name: 'getCustomer', arguments: { id: '7' } });
    expect(answers.tasks).toEqual([]);
    expect(outcome.result.structuredContent).toEqual({
      people: [0, 1, 2].map((id) => ({ id, email: '[REDACTED:email]' })),
    });
  });

  it('gives an answer above it to the pool, capped to the grant, with the same result as in-thread', async () => {
    const value = people(2_000);
    const answers = recordingAnswers();
    const viaPool = await callTool(deps(value, answers), caller, { name: 'getCustomer', arguments: { id: '7' } });
    const inThread = await callTool(deps(value, undefined), caller, { name: 'getCustomer', arguments: { id: '7' } });
    expect(answers.tasks).toHaveLength(1);
    expect(answers.tasks[0]).toMatchObject({
      toolName: 'getCustomer',
      maxTokens: 2000,
      wantCacheText: false,
      source: { kind: 'downstream' },
    });
    expect(viaPool.truncated).toBe(true);
    expect(viaPool.tokensCharged).toBe(inThread.tokensCharged);
    // Cut, the text is small: structuredContent is parsed from it, as in-thread.
    expect(viaPool.result).toEqual(inThread.result);
  });

  it('sends a large uncut answer as text alone: no structuredContent parsed back on the event loop', async () => {
    const value = people(2_000);
    const outcome = await callTool(deps(value, recordingAnswers()), caller, {
      name: 'getCustomerUncapped',
      arguments: { id: '7' },
    });
    expect(outcome.truncated).toBe(false);
    expect(JSON.parse(outcome.result.content[0].text).people).toHaveLength(2_000);
    expect(outcome.result.structuredContent).toBeUndefined();
  });
});
