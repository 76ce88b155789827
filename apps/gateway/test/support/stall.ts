import { agentAudit, type AuditRecordJson } from './audit.js';
import type { GatewayClient } from './gateway-client.js';
import { mcpRaw, rawCall, type McpExchange, type TestAgent } from './mcp.js';
import { eventually } from './processes.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface StalledAgent {
  agent: TestAgent;
  sessionId: string;
  gatewayUrl: string;
}

export interface StallOutcome {
  replies: McpExchange[];
  /** Replies that carried a tool result: each must be audited `ok` exactly once. */
  answered: number;
  /** When each answered call was sent and answered (Date.now()), in order. */
  answers: Array<{ sentAt: number; answeredAt: number }>;
}

export interface Stall {
  outcomes: Map<string, StallOutcome>;
  /** Date.now() at `pause` and at `resume`. */
  pausedAt: number;
  resumedAt: number;
}

/**
 * Calls `get_item` in `loops` loops per agent until `resume` has run and every
 * agent has had `afterResume` more answers: the store is frozen by `pause`
 * once `beforePause` replies have come, for `pauseMs`, while calls are in
 * flight, the way a Redis stall looks under load.
 */
export async function callThroughStall(
  agents: readonly StalledAgent[],
  options: {
    loops: number;
    beforePause: number;
    pauseMs: number;
    afterResume: number;
    pause: () => void;
    resume: () => void;
  },
): Promise<Stall> {
  const outcomes = new Map<string, StallOutcome>(
    agents.map((a) => [a.agent.agentId, { replies: [], answered: 0, answers: [] }]),
  );
  let pausedAt = 0;
  let resumedAt = 0;
  let stop = false;
  let next = 1_000;
  const loop = async ({ agent, sessionId, gatewayUrl }: StalledAgent) => {
    const outcome = outcomes.get(agent.agentId)!;
    while (!stop) {
      const id = next++;
      const sentAt = Date.now();
      const reply = await rawCall(
        gatewayUrl,
        agent.token,
        sessionId,
        'tools/call',
        { name: 'get_item', arguments: { id } },
        id,
      ).catch((): McpExchange => ({ status: 0, headers: new Headers(), text: '', message: null }));
      outcome.replies.push(reply);
      if (reply.message?.result && reply.message.result.isError !== true) {
        outcome.answered++;
        outcome.answers.push({ sentAt, answeredAt: Date.now() });
      }
      await sleep(5);
    }
  };
  const running = agents.flatMap((agent) => Array.from({ length: options.loops }, () => loop(agent)));
  const total = () => [...outcomes.values()].reduce((sum, outcome) => sum + outcome.replies.length, 0);
  try {
    await eventually(
      async () => total(),
      (count) => count >= options.beforePause,
      20_000,
    );
    pausedAt = Date.now();
    options.pause();
    await sleep(options.pauseMs);
    options.resume();
    resumedAt = Date.now();
    const answeredAtResume = new Map([...outcomes].map(([id, outcome]) => [id, outcome.answered]));
    await eventually(
      async () =>
        [...outcomes].every(([id, outcome]) => outcome.answered - answeredAtResume.get(id)! >= options.afterResume),
      (done) => done,
      30_000,
    );
  } finally {
    stop = true;
    await Promise.all(running);
  }
  return { outcomes, pausedAt, resumedAt };
}

/**
 * Every audit record of the agent once the trail has written all it held: a
 * marker call is made, and since the trail writes in order (a batch it
 * retries goes back to the head of its queue), once the marker's record is
 * stored so is every record before it, retried ones included. The marker's
 * record is among those returned.
 */
export async function settledAudit(
  api: GatewayClient,
  admin: string,
  { agent, sessionId, gatewayUrl }: StalledAgent,
): Promise<AuditRecordJson[]> {
  const requestId = `stall-marker-${agent.agentId}`;
  const call = {
    jsonrpc: '2.0',
    id: 999_999,
    method: 'tools/call',
    params: { name: 'get_item', arguments: { id: 999_999 } },
  };
  const marker = await mcpRaw(gatewayUrl, call, {
    token: agent.token,
    sessionId,
    headers: { 'X-Request-Id': requestId },
  });
  if (marker.message?.result === undefined) throw new Error(`marker call: ${marker.status} ${marker.text}`);
  return eventually(
    () => agentAudit(api, admin, agent.agentId),
    (all) => all.some((record) => record.requestId === requestId),
    30_000,
  );
}

/** How many records share a call id with another: a call audited more than once. */
export function duplicatedCalls(records: readonly AuditRecordJson[]): number {
  const seen = new Set<string>();
  let duplicates = 0;
  for (const record of records) {
    if (record.callId === undefined) continue;
    if (seen.has(record.callId)) duplicates++;
    seen.add(record.callId);
  }
  return duplicates;
}
