import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentAudit, type AuditRecordJson } from './support/audit.js';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { createAgentWithToken, mcpRaw, openRawSession, type TestAgent } from './support/mcp.js';
import { callAndDropAfterPriming, madeUp, openResume } from './support/resume-client.js';
import { eventually } from './support/processes.js';
import { monitorRedis } from './support/redis-monitor.js';
import { startPair, type Pair } from './support/pair.js';

/** Resumes one agent may hold on one instance, and connections per instance: the bound on every agent's resumes follows (half). */
const MAX_RESUMES_PER_AGENT = 3;
const MAX_CONNECTIONS = 24;
const MAX_RESUMES = MAX_CONNECTIONS / 2;
/** The longest a waiting resume goes without a notice before it reads the store again (a lost notice's bound). */
const RESUME_RECHECK_MS = 10_000;
/** A tools/call still running after this long streams: its priming event goes out, then a keep-alive every second. */
const KEEP_ALIVE_MS = 1_000;
/**
 * A TCP hop that hides its client's leaving from the gateway until the
 * gateway next writes, as an L4 proxy or a NAT box that learns of a dead
 * peer only then: the case where the gateway cannot see the drop at once.
 */
async function startHidingProxy(target: string): Promise<{ url: string; close(): void }> {
  const { hostname, port } = new URL(target);
  const server: Server = createServer((client) => {
    const upstream = connect({ host: hostname, port: Number(port) });
    let clientGone = false;
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => (clientGone ? upstream.destroy() : client.write(chunk)));
    client.on('close', () => (clientGone = true));
    upstream.on('close', () => client.destroy());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, close: () => server.close() };
}

/** An agent with a session and a tools/call that runs for the downstream's delay, its stream dropped after the priming event. */
async function agentWithRunningCall(pair: Pair<ControlledDownstream, true>, admin: string, label: string) {
  const agent = await createAgentWithToken(pair.api, admin, { label, dailyTokenBudget: 100_000 });
  const { sessionId } = await openRawSession(pair.gateways[0]!.url, agent.token, '2025-11-25');
  const { lastEventId } = await callAndDropAfterPriming(pair.gateways[0]!.url, agent, sessionId, 41);
  return { agent, sessionId, lastEventId };
}

async function toolCallRecords(
  pair: Pair<ControlledDownstream, true>,
  admin: string,
  agent: TestAgent,
  count: number,
): Promise<AuditRecordJson[]> {
  const records = () =>
    agentAudit(pair.api, admin, agent.agentId).then((all) => all.filter((record) => record.kind === 'tool-call'));
  return eventually(records, (found) => found.length >= count);
}

/**
 * Issue 25, findings 1 and 2: resumable tools/call streams (2025-11-25) on
 * two instances sharing one Redis. An answer whose client dropped its stream
 * is kept for a resume or not charged, never both lost and charged; resumes
 * are bounded and wait on a notification.
 */
describe('resumable streams under a hostile or unlucky client (dist/main.js × 2 on one Redis)', () => {
  let pair: Pair<ControlledDownstream, true>;
  let admin: string;

  beforeAll(async () => {
    pair = await startPair({
      downstream: 'controlled',
      redis: true,
      instances: 2,
      gateway: {
        env: {
          Gw__Mcp__KeepAliveSeconds: String(KEEP_ALIVE_MS / 1000),
          Gw__Mcp__ResumeWindowSeconds: '20',
          Gw__Mcp__MaxResumesPerAgent: String(MAX_RESUMES_PER_AGENT),
          Gw__Http__MaxConnections: String(MAX_CONNECTIONS),
          Gw__Cache__Enabled: 'false',
        },
      },
    });
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  it.each([
    ['straight to the gateway', false],
    ['through a hop that shows the drop only at the next write', true],
  ] as const)(
    'finding 1: a stream dropped right after its priming event (%s), answered before the next keep-alive, is resumable on the other instance',
    async (_label, hidden) => {
      const agent = await createAgentWithToken(pair.api, admin, {
        label: `dropped-after-priming-${hidden}`,
        dailyTokenBudget: 100_000,
      });
      const [first, second] = pair.gateways;
      const { sessionId } = await openRawSession(first!.url, agent.token, '2025-11-25');
      // Priming at 1 s, the answer at 1.5 s, the next keep-alive write at 2 s.
      pair.downstream.delayMs = KEEP_ALIVE_MS * 1.5;
      const hop = hidden ? await startHidingProxy(first!.url) : null;
      const dropped = await callAndDropAfterPriming(hop?.url ?? first!.url, agent, sessionId, 41).finally(() =>
        hop?.close(),
      );
      const [record] = await toolCallRecords(pair, admin, agent, 1);

      const resumed = await mcpRaw(second!.url, undefined, {
        method: 'GET',
        token: agent.token,
        sessionId,
        headers: { 'Last-Event-ID': dropped.lastEventId, 'Content-Type': undefined },
      });
      const deliveredInStream = /event: message\ndata: .*"id":41.*"result"/s.test(dropped.received);
      const resumedAnswer = resumed.status === 200 && 'result' in (resumed.message ?? {});
      // Never both lost and charged: the answer reached the client (in its stream or on resume), or nothing was charged.
      if (record!.tokensCharged > 0)
        expect({ deliveredInStream, resumedAnswer }).not.toEqual({ deliveredInStream: false, resumedAnswer: false });
      // With the fix the gateway keeps what it could not deliver: the resume answers it.
      if (!deliveredInStream)
        expect(resumed.message).toMatchObject({ id: 41, result: { content: [{ type: 'text' }] } });
    },
  );

  it('finding 2: refuses at once a made-up Last-Event-ID, and a genuine one from another session', async () => {
    pair.downstream.delayMs = 4 * KEEP_ALIVE_MS;
    const { agent, lastEventId } = await agentWithRunningCall(pair, admin, 'resume-forger');
    const { sessionId: otherSession } = await openRawSession(pair.gateways[1]!.url, agent.token, '2025-11-25');
    const { sessionId: ownSession } = await openRawSession(pair.gateways[1]!.url, agent.token, '2025-11-25');
    for (const [sessionId, eventId] of [
      [ownSession, madeUp(lastEventId)],
      [otherSession, lastEventId],
    ] as const) {
      // A held resume would answer 200 and stream; a refusal comes with its status line, before any keep-alive.
      const resume = await openResume(pair.gateways[1]!.url, agent, sessionId, eventId);
      const body = await resume.text();
      expect({ status: resume.status, body }).toMatchObject({ status: 400, body: expect.stringContaining('-32600') });
    }
  });

  it("finding 2: bounds one agent's resumes, and wakes the held ones on a notice rather than polling the store", async () => {
    pair.downstream.delayMs = 5 * KEEP_ALIVE_MS;
    const { agent, sessionId, lastEventId } = await agentWithRunningCall(pair, admin, 'resume-hoarder');
    const monitor = await monitorRedis(pair.redis.url);
    const started = Date.now();
    const held = await Promise.all(
      Array.from({ length: MAX_RESUMES_PER_AGENT }, () =>
        openResume(pair.gateways[1]!.url, agent, sessionId, lastEventId),
      ),
    );
    expect(held.map((resume) => resume.status)).toEqual(Array(MAX_RESUMES_PER_AGENT).fill(200));
    const refused = await openResume(pair.gateways[1]!.url, agent, sessionId, lastEventId);
    expect.soft(refused.status).toBe(429);
    if (refused.status === 429) expect(await refused.text()).toContain('-32003');
    else refused.close();

    // The answer lands on the first instance; the held resumes on the second get it.
    const answers = await Promise.all(held.map((resume) => resume.text()));
    const heldMs = Date.now() - started;
    for (const answer of answers) expect(answer).toMatch(/event: message\ndata: .*"id":41.*"result"/s);
    const streamId = lastEventId.replace(/:0$/, '');
    const reads = monitor
      .commands()
      .split('\n')
      .filter((line) => line.includes('"GET"') && line.includes(streamId)).length;
    monitor.stop();
    // Each resume reads once as it starts and once per notice (or per recheck): polling would read four times a second.
    expect
      .soft(reads, `reads of the stream's key in ${heldMs} ms`)
      .toBeLessThanOrEqual(MAX_RESUMES_PER_AGENT * (2 + Math.floor(heldMs / RESUME_RECHECK_MS)));
  });

  it("finding 2: bounds every agent's resumes together below the connection limit; the instance still answers others", async () => {
    pair.downstream.delayMs = 5 * KEEP_ALIVE_MS;
    const agents = await Promise.all(
      Array.from({ length: 5 }, (_, i) => agentWithRunningCall(pair, admin, `resume-crowd-${i}`)),
    );
    const attempts = agents.flatMap(({ agent, sessionId, lastEventId }) =>
      Array.from({ length: MAX_RESUMES_PER_AGENT }, () =>
        openResume(pair.gateways[1]!.url, agent, sessionId, lastEventId),
      ),
    );
    const resumes = await Promise.all(attempts);
    const statuses = resumes.map((resume) => resume.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(MAX_RESUMES);
    expect(statuses.filter((status) => status === 429)).toHaveLength(
      agents.length * MAX_RESUMES_PER_AGENT - MAX_RESUMES,
    );
    expect((await fetch(`${pair.gateways[1]!.url}/health/live`)).status).toBe(200);
    for (const resume of resumes) resume.close();
  });
});
