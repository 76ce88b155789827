import { startRedisCluster, type RedisCluster } from '@tollgate/gateway-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { createAgentWithToken, openRawSession } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { monitorRedis } from './support/redis-monitor.js';
import { redisServerAvailable } from './support/redis-guard.js';
import { callAndDropAfterPriming, madeUp, openResume } from './support/resume-client.js';

const available = redisServerAvailable('the resume-on-a-Redis-Cluster process test');
const KEEP_ALIVE_MS = 1_000;
/** The longest a waiting resume goes without a notice before it reads the store again (a lost notice's bound). */
const RESUME_RECHECK_MS = 10_000;

/**
 * Issue 25, findings 1 and 2, on a Redis Cluster of three masters: a stream
 * dropped on one instance is resumed on the other, the resume woken by the
 * notice the keeping instance publishes (pub/sub crosses the cluster's
 * masters), not by polling; a made-up stream is refused at once.
 */
describe.runIf(available)('resumable streams on a Redis Cluster (dist/main.js × 2 + 3 redis-server masters)', () => {
  let cluster: RedisCluster;
  let pair: Pair<ControlledDownstream, false>;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    pair = await startPair({
      downstream: 'controlled',
      instances: 2,
      gateway: {
        env: {
          ConnectionStrings__Store: cluster.url,
          Gw__Mcp__KeepAliveSeconds: String(KEEP_ALIVE_MS / 1000),
          Gw__Mcp__ResumeWindowSeconds: '20',
          Gw__Cache__Enabled: 'false',
        },
      },
    });
  }, 90_000); // beyond startRedisCluster's own 60 s bound
  afterAll(async () => {
    await pair?.stop();
    await cluster?.stop();
  });

  it('resumes on the other instance, woken by a notice; refuses a made-up stream at once', async () => {
    const [first, second] = pair.gateways.map((gateway) => gateway.url) as [string, string];
    const agent = await createAgentWithToken(pair.api, await pair.adminToken(), {
      label: 'cluster-resume',
      dailyTokenBudget: 100_000,
    });
    const { sessionId } = await openRawSession(first, agent.token, '2025-11-25');
    pair.downstream.delayMs = 4 * KEEP_ALIVE_MS;
    const { lastEventId } = await callAndDropAfterPriming(first, agent, sessionId, 41);

    const forged = await openResume(second, agent, sessionId, madeUp(lastEventId));
    expect(forged.status).toBe(400);
    await forged.text();

    const streamId = lastEventId.replace(/:0$/, '');
    const monitor = await monitorRedis(cluster.nodes[await cluster.masterOf(`tollgate:stream:${streamId}`)]!.url);
    const started = Date.now();
    const resume = await openResume(second, agent, sessionId, lastEventId);
    expect(resume.status).toBe(200);
    expect(await resume.text()).toMatch(/event: message\ndata: .*"id":41.*"result"/s);
    const heldMs = Date.now() - started;
    const reads = monitor
      .commands()
      .split('\n')
      .filter((line) => line.includes('"GET"') && line.includes(streamId)).length;
    monitor.stop();
    // One read as it starts and one on the notice (or one per recheck): a poll would read four times a second.
    expect(reads, 'the monitored master serves the key').toBeGreaterThanOrEqual(1);
    expect(reads, `reads of the stream's key in ${heldMs} ms`).toBeLessThanOrEqual(
      2 + Math.floor(heldMs / RESUME_RECHECK_MS),
    );
  });
});
