import { createMemoryStore, type AuditEntry } from '@tollgate/gateway-core/store';
import { describe, expect, it } from 'vitest';
import { lastHourStats } from './overview-stats.js';

const NOW = new Date('2026-05-01T12:00:00.000Z');
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();

function call(agentId: string, outcome: AuditEntry['outcome'], tokensCharged: number, time: string): AuditEntry {
  return {
    time,
    kind: 'tool-call',
    agentId,
    sessionId: null,
    tool: 'get_order',
    outcome,
    httpStatus: 200,
    jsonRpcCode: null,
    tokensCharged,
    gatewayMs: 1,
    downstreamMs: 1,
    cacheTier: null,
    downstreamStatus: 200,
    argsDigest: null,
    actor: null,
    detail: null,
    requestId: null,
  };
}

describe('lastHourStats', () => {
  it('counts the tool calls of the last hour only, errors apart, and ranks agents by tokens', async () => {
    const store = createMemoryStore({ clock: () => NOW.getTime() });
    await store.audit.append([
      call('agt_old', 'ok', 9_999, minutesAgo(61)),
      call('agt_a', 'ok', 100, minutesAgo(50)),
      call('agt_b', 'ok', 300, minutesAgo(40)),
      call('agt_a', 'budget-exhausted', 0, minutesAgo(30)),
      call('agt_a', 'cache-hit', 50, minutesAgo(20)),
      { ...call('agt_b', 'agent.updated', 0, minutesAgo(10)), kind: 'management', tool: null },
    ]);
    const stats = await lastHourStats(store.audit, NOW);
    expect(stats).toMatchObject({ calls: 4, errors: 1, tokens: 450, complete: true });
    expect(stats.topAgents).toEqual([
      { agentId: 'agt_b', calls: 1, tokens: 300 },
      { agentId: 'agt_a', calls: 3, tokens: 150 },
    ]);
  });

  it('stops at the scan bound and says the figures are partial', async () => {
    const store = createMemoryStore({ clock: () => NOW.getTime() });
    await store.audit.append(Array.from({ length: 30 }, (_, i) => call('agt_a', 'ok', 1, minutesAgo(30 - i / 10))));
    const stats = await lastHourStats(store.audit, NOW, 20);
    expect(stats).toMatchObject({ calls: 20, tokens: 20, complete: false });
  });
});
