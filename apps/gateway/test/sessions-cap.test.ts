import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, openRawSession, rawCall, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import type { RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the per-agent session cap tests');

/**
 * `Gw:Mcp:MaxSessionsPerAgent` on two gateway processes sharing one Redis
 * (issue 15, "sessions are unlimited"): an agent opening sessions past its cap
 * loses its least recently used one, whichever instance opened or last used
 * it; other agents' sessions are not touched.
 */
describe.runIf(available)('per-agent session cap across two gateways on one Redis', () => {
  let pair: Pair<RunningProcess, true>;
  let gateways: [RunningProcess, RunningProcess];
  let api: GatewayClient;
  let admin: string;

  beforeAll(async () => {
    pair = await startPair({ redis: true, instances: 2, gateway: { env: { Gw__Mcp__MaxSessionsPerAgent: '3' } } });
    gateways = [pair.gateways[0]!, pair.gateways[1]!];
    api = pair.api;
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  const agent = (label: string): Promise<TestAgent> =>
    createAgentWithToken(api, admin, { label, dailyTokenBudget: 100_000 });
  /** Opens a session on the given instance; a few ms apart, so "last used" orders them. */
  const open = async (instance: number, { token }: TestAgent) => {
    const { sessionId } = await openRawSession(gateways[instance % 2]!.url, token);
    await sleep(5);
    return sessionId;
  };
  const status = async (instance: number, { token }: TestAgent, sessionId: string) =>
    (await rawCall(gateways[instance % 2]!.url, token, sessionId, 'ping')).status;

  it('ends the two oldest of five sessions opened alternately on both instances; the three newest and another agent keep working', async () => {
    const [alice, bob] = [await agent('alice'), await agent('bob')];
    const bobs = await open(0, bob);
    const sessions: string[] = [];
    for (let i = 0; i < 5; i += 1) sessions.push(await open(i, alice));

    for (const [i, sessionId] of sessions.entries()) {
      // Asked on the instance that did not open it: the cap is the store's, not one process's.
      expect({ i, status: await status(i + 1, alice, sessionId) }).toEqual({ i, status: i < 2 ? 404 : 200 });
    }
    expect(await status(1, bob, bobs)).toBe(200);
  });

  it('ends the session idle longest, not the oldest, with its use seen on the other instance', async () => {
    const carol = await agent('carol');
    const [first, second, third] = [await open(0, carol), await open(1, carol), await open(0, carol)];
    expect(await status(1, carol, first)).toBe(200); // first is now more recently used than second
    await sleep(5);
    const fourth = await open(0, carol);

    expect(await status(0, carol, second)).toBe(404);
    for (const sessionId of [first, third, fourth]) expect(await status(1, carol, sessionId)).toBe(200);
  });
});
