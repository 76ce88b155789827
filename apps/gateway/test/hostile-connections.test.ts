import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentWithToken, openRawSession, rawCall, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { parseRawResponse } from './support/raw-http.js';

/** The Docker image's heap flags, so memory behaves as in a pod. */
const IMAGE_NODE_OPTIONS = '--max-semi-space-size=16 --max-old-space-size=224';
/** The Helm chart's memory limit; the attacks must leave room to spare. */
const CHART_LIMIT_MB = 512;
/** What a loaded 2-core CI machine adds to a median call on its own (other test files run alongside). */
const SLACK_MS = 50;
/** What must stay free under the limit at the attack's peak. */
const HEADROOM_MB = 64;
/**
 * What the attack may add at its peak: the bytes the attackers push are still
 * read (and dropped) so their connections close cleanly, and the allocator
 * keeps some of that churn. Before, every body was held: +360 MB.
 */
const MAX_GROWTH_MB = 128;
const SOCKETS = 400;
const MiB = 1024 * 1024;

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return Number(line?.[1] ?? 0) / 1024;
}

interface Stalled {
  socket: Socket;
  /** What the gateway sent back so far (latin1). */
  received(): string;
  closed: Promise<void>;
}

/** Declares a 1 MiB body to /mcp, sends `sendBytes` of it, and stalls. */
function stallUpload(url: string, token: string | undefined, sendBytes: number): Promise<Stalled> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      const head = [
        'POST /mcp HTTP/1.1',
        `Host: ${hostname}:${port}`,
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
        `Content-Length: ${MiB}`,
      ];
      if (token) head.push(`Authorization: Bearer ${token}`);
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      socket.write(Buffer.alloc(sendBytes, 'a'), () => resolve({ socket, received: () => received, closed }));
    });
  });
}

/** Small tools/call latencies (ms) of a well-behaved agent, one after another. */
async function callTimes(
  url: string,
  agent: TestAgent,
  sessionId: string,
  count: number,
): Promise<{ statuses: number[]; ms: number[] }> {
  const statuses: number[] = [];
  const ms: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const reply = await rawCall(
      url,
      agent.token,
      sessionId,
      'tools/call',
      { name: 'get_order', arguments: { id: 1001 } },
      i + 10,
    );
    ms.push(performance.now() - started);
    statuses.push(reply.status);
  }
  return { statuses, ms };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Issue 15, "anonymous memory exhaustion": 400 sockets each declaring a
 * 1 MiB body to /mcp, sending 1 MB of it and stalling, took a gateway
 * started with the image's heap flags from 330 to 690 MB RSS. Now the token
 * is checked before the body is read (anonymous bodies are never held), an
 * agent's bodies in flight are bounded, and stalled requests time out.
 */
describe('hostile connections: stalled uploads (dist/main.js, production, image heap flags)', () => {
  let pair: Pair;
  let honest: TestAgent;
  let flooder: TestAgent;
  let sessionId: string;
  let pid: number;

  beforeAll(async () => {
    pair = await startPair({
      gateway: {
        env: {
          NODE_OPTIONS: IMAGE_NODE_OPTIONS,
          // Short, so the stalled uploads of the token holder end within the test.
          Gw__Http__RequestTimeoutSeconds: '4',
          Gw__Http__HeadersTimeoutSeconds: '2',
          Gw__Cache__Enabled: 'false',
        },
      },
    });
    pid = pair.gateway.child.pid!;
    const admin = await pair.adminToken();
    const scopes = ['orders:read'];
    honest = await createAgentWithToken(pair.api, admin, { label: 'honest', dailyTokenBudget: 1_000_000, scopes });
    flooder = await createAgentWithToken(pair.api, admin, { label: 'flooder', dailyTokenBudget: 1_000_000, scopes });
    ({ sessionId } = await openRawSession(pair.url, honest.token));
    await callTimes(pair.url, honest, sessionId, 20); // warm up
  });
  afterAll(() => pair?.stop());

  async function attack(token: string | undefined) {
    const baseline = await callTimes(pair.url, honest, sessionId, 20);
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
    const stalled: Stalled[] = [];
    const started = performance.now();
    for (let i = 0; i < SOCKETS; i += 20)
      stalled.push(...(await Promise.all(Array.from({ length: 20 }, () => stallUpload(pair.url, token, 1_000_000)))));
    const attackMs = performance.now() - started;
    const during = await callTimes(pair.url, honest, sessionId, 20);
    await sleep(500);
    clearInterval(sampler);
    console.info(`RSS ${token ? 'token' : 'anonymous'}: before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB`);
    return { baseline, during, before, peak, stalled, attackMs };
  }

  it('400 anonymous stalled uploads: each refused 401 at once, unread; RSS stays far under the chart limit; another agent is served as usual', async () => {
    const { baseline, during, before, peak, stalled } = await attack(undefined);
    await Promise.all(stalled.map((s) => Promise.race([s.closed, sleep(5_000)])));
    const replies = stalled.map((s) => parseRawResponse(s.received()));

    expect(replies.filter((r) => r.status === 401 && r.headers.connection === 'close')).toHaveLength(SOCKETS);
    expect(stalled.filter((s) => !s.socket.destroyed && s.socket.readyState === 'open')).toHaveLength(0);
    expect(during.statuses.every((status) => status === 200)).toBe(true);
    expect(median(during.ms)).toBeLessThan(median(baseline.ms) + SLACK_MS);
    expect(peak).toBeLessThan(CHART_LIMIT_MB - HEADROOM_MB);
    expect(peak - before).toBeLessThan(MAX_GROWTH_MB);
  });

  it('400 stalled uploads with a valid token: an eighth of the pending-body bound is admitted, the rest refused 429 unread; the admitted time out; another agent is served as usual', async () => {
    const { baseline, during, before, peak, stalled, attackMs } = await attack(flooder.token);
    // Admitted bodies wait for the rest of their bytes until the request timeout (4 s here).
    await Promise.all(stalled.map((s) => Promise.race([s.closed, sleep(10_000)])));
    const replies = stalled.map((s) => parseRawResponse(s.received()));
    const statuses = replies.map((reply) => reply.status);
    const refused = statuses.filter((status) => status === 429).length;
    // A refused upload says when to come back, and that the connection ends.
    expect(
      replies.filter(
        (reply) =>
          reply.status === 429 && (reply.headers['retry-after'] !== '1' || reply.headers.connection !== 'close'),
      ),
    ).toEqual([]);
    const timedOut = statuses.filter((status) => status === 408).length;

    // 64 MiB pending bound by default, an eighth per agent: 8 bodies of a declared 1 MiB at a time.
    // Admitted ones free their place when they time out (4 s), so a slow attack gets a few more in.
    expect(refused + timedOut).toBe(SOCKETS);
    expect(timedOut).toBeGreaterThanOrEqual(8);
    expect(timedOut).toBeLessThanOrEqual(8 * Math.ceil(attackMs / 4_000 + 1));
    expect(stalled.filter((s) => !s.socket.destroyed && s.socket.readyState === 'open')).toHaveLength(0);
    expect(during.statuses.every((status) => status === 200)).toBe(true);
    expect(median(during.ms)).toBeLessThan(median(baseline.ms) + SLACK_MS);
    expect(peak).toBeLessThan(CHART_LIMIT_MB - HEADROOM_MB);
    expect(peak - before).toBeLessThan(MAX_GROWTH_MB);
  });

  it('a client that sends no headers is cut after the headers timeout', async () => {
    const { hostname, port } = new URL(pair.url);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.write('POST /mcp HTTP/1.1\r\nHost: x\r\n');
    const started = performance.now();
    await new Promise((done) => socket.once('close', done));
    const elapsed = performance.now() - started;
    expect(received).toMatch(/^HTTP\/1.1 408/);
    expect(elapsed).toBeGreaterThan(1_500);
    expect(elapsed).toBeLessThan(5_000);
  });
});
