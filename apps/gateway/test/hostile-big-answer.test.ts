import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentWithToken, openRawSession, rawCall, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';

/** The answer limit the gateway runs with here: above the 8 MB answer, below the oversized ones. */
const LIMIT_BYTES = 9 * 1024 * 1024;
/** A small call normally takes a few ms; this much more is still "not held up". */
const MARGIN_MS = 50;
/** What the typical (median) small call may gain while big answers are processed. */
const FEW_MS = 5;
/** Issue 25 finding 11: what an 8.5 MB answer in flight may add to another agent's slowest call (median over rounds). */
const ADDED_MS = 50;

const tool = (name: string, routePattern: string) => ({
  name,
  description: `${name} (issue 15 item 3)`,
  allowWrite: false,
  maxResponseTokens: 2000,
  requiredScopes: [],
  httpMethod: 'GET',
  routePattern,
  parameterSources: {},
  inputSchema: { type: 'object', properties: {}, required: [] },
});

const TOOLS = [
  tool('get_small', '/small'),
  tool('get_big', '/big'),
  tool('get_wide', '/wide'),
  tool('get_oversized', '/oversized'),
  tool('get_declared_oversized', '/declared-oversized'),
];

/** About 8.5 MB of customer records: the shape a list endpoint answers with. */
function bigRecords(bytes: number): Buffer {
  const items = [];
  let size = 0;
  for (let id = 0; size < bytes; id++) {
    const item = { id, name: `Customer number ${id}`, email: `user${id}@example.com`, note: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit', tags: ['a', 'b'], score: id * 1.5 };
    items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return Buffer.from(JSON.stringify({ items }));
}

/** One object with 200,000 keys. */
function wideObject(): Buffer {
  const object: Record<string, string> = {};
  for (let i = 0; i < 200_000; i++) object[`key_${i}`] = `value ${i}`;
  return Buffer.from(JSON.stringify(object));
}

/**
 * The downstream, in the test process: answers are serialized once up
 * front, so serving them costs this process little. `/oversized` streams
 * past the limit without a Content-Length; `/declared-oversized` declares a
 * length past it and then stalls, so only a gateway that believes the header
 * answers before its timeout.
 */
async function startBigDownstream(): Promise<{ url: string; server: Server; big: Buffer }> {
  const big = bigRecords(8.5 * 1000 * 1000);
  const wide = wideObject();
  const chunk = Buffer.alloc(1024 * 1024, 'x');
  const stalled = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const json = (body: Buffer | string) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
    switch (request.url) {
      case '/gw/schema':
        return json(JSON.stringify(TOOLS));
      case '/small':
        return json('{"ok":true,"item":{"id":1,"name":"widget"}}');
      case '/big':
        return json(big);
      case '/wide':
        return json(wide);
      case '/oversized': {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.write('"');
        for (let written = 0; written <= LIMIT_BYTES; written += chunk.length) response.write(chunk);
        return response.end('"');
      }
      case '/declared-oversized':
        response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(LIMIT_BYTES * 4) });
        response.write('{"partial":');
        stalled.add(response);
        return;
      default:
        response.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.on('close', () => stalled.forEach((response) => response.destroy()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, big };
}

interface Session {
  token: string;
  sessionId: string;
}

async function session(url: string, agent: TestAgent): Promise<Session> {
  const { sessionId } = await openRawSession(url, agent.token, '2025-06-18');
  return { token: agent.token, sessionId };
}

async function call(url: string, { token, sessionId }: Session, name: string) {
  const started = performance.now();
  const reply = await rawCall(url, token, sessionId, 'tools/call', { name, arguments: {} });
  return { reply, ms: performance.now() - started };
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

/**
 * Issue 15 item 3 against the built gateway: a big downstream answer is
 * read within a byte limit and its JSON work does not hold the event loop,
 * so another agent's small calls keep their latency while it is processed.
 */
describe('a big downstream answer (dist/main.js)', () => {
  let downstream: Awaited<ReturnType<typeof startBigDownstream>>;
  let pair: Pair<{ url: string }>;
  let url: string;
  let bigCaller: Session;
  let smallCaller: Session;

  beforeAll(async () => {
    downstream = await startBigDownstream();
    pair = await startPair({
      downstream: { url: downstream.url },
      // get_big is not cached, so every call of it reads and processes the downstream's 8 MB.
      gateway: { env: { Gw__Downstream__MaxResponseBytes: String(LIMIT_BYTES), Gw__Cache__Tools__get_big__Enabled: 'false' } },
    });
    url = pair.url;
    const admin = await pair.adminToken();
    const budget = { dailyTokenBudget: 10_000_000 };
    bigCaller = await session(url, await createAgentWithToken(pair.api, admin, { label: 'big answers', ...budget }));
    smallCaller = await session(url, await createAgentWithToken(pair.api, admin, { label: 'small answers', ...budget }));
  }, 60_000);
  afterAll(async () => {
    await pair?.stop();
    downstream?.server.closeAllConnections();
    downstream?.server.close();
  });

  it('answers the big call, capped to the tool and marked truncated', async () => {
    const { reply } = await call(url, bigCaller, 'get_big');
    expect(reply.status).toBe(200);
    expect(reply.message.result.isError).toBeFalsy();
    const text = reply.message.result.content[0].text;
    const capped = JSON.parse(text);
    expect(capped._truncated).toMatchObject({ reason: 'maxResponseTokens', maxTokens: 2000 });
    // Of the filtered answer (each e-mail address replaced by its marker): close to what was sent.
    expect(capped._truncated.originalBytes).toBeGreaterThan(0.9 * downstream.big.length);
    expect(capped.data.items[0]).toMatchObject({ id: 0, email: '[REDACTED:email]' });
    expect(reply.message.result.structuredContent).toEqual(capped);
  }, 20_000);

  it("keeps another agent's small calls at their normal latency while big answers are processed", async () => {
    for (let i = 0; i < 5; i++) await call(url, smallCaller, 'get_small');
    const baseline: number[] = [];
    for (let i = 0; i < 40; i++) baseline.push((await call(url, smallCaller, 'get_small')).ms);

    let bigDone = false;
    const big = Promise.all([call(url, bigCaller, 'get_big'), call(url, bigCaller, 'get_big'), call(url, bigCaller, 'get_wide')]).finally(() => (bigDone = true));
    const during: number[] = [];
    while (!bigDone) {
      const { reply, ms } = await call(url, smallCaller, 'get_small');
      expect(reply.message.result.isError).toBeFalsy();
      during.push(ms);
    }
    const bigReplies = await big;

    const summary = {
      baseline: { p50: percentile(baseline, 0.5), p95: percentile(baseline, 0.95), max: Math.max(...baseline) },
      during: { calls: during.length, p50: percentile(during, 0.5), p95: percentile(during, 0.95), max: Math.max(...during) },
      big: bigReplies.map(({ ms }) => Math.round(ms)),
    };
    console.log(`small-call latency (ms) around big answers: ${JSON.stringify(summary)}`);
    for (const { reply } of bigReplies) expect(JSON.parse(reply.message.result.content[0].text)._truncated).toBeDefined();
    // The big answers took a while: the small calls did run alongside them.
    expect(during.length).toBeGreaterThanOrEqual(5);
    // Nearly every call keeps its normal latency; the single slowest may meet a GC pause or the
    // other test files sharing these two cores, but never the seconds an answer on the event loop cost.
    // The typical call: no more than a few ms added (issue 15's target).
    expect(summary.during.p50).toBeLessThanOrEqual(summary.baseline.p50 + FEW_MS);
    expect(summary.during.p95).toBeLessThanOrEqual(summary.baseline.p95 + MARGIN_MS);
    // The single slowest call is not judged here: one call meets whatever else the machine does
    // (it failed at 393 and 525 ms against 359 and 294 on the loaded 2-core machine, 2 of 2 runs).
    // The next test bounds the slowest call as a median over rounds against calls alone.
  }, 45_000);

  it("adds at most 50 ms to another agent's slowest call while an 8.5 MB answer is in flight (issue 25 finding 11)", async () => {
    for (let i = 0; i < 5; i++) await call(url, smallCaller, 'get_small');
    const slowestDuring: number[] = [];
    const slowestAlone: number[] = [];
    for (let round = 0; round < 5; round++) {
      // Small calls back to back while one big answer is read, processed and sent...
      let bigDone = false;
      const big = call(url, bigCaller, 'get_big').finally(() => (bigDone = true));
      const during: number[] = [];
      while (!bigDone && during.length < 40) during.push((await call(url, smallCaller, 'get_small')).ms);
      await big;
      // ...and as many alone: the slowest of equally many calls, with and without the big answer.
      const alone: number[] = [];
      while (alone.length < during.length) alone.push((await call(url, smallCaller, 'get_small')).ms);
      slowestDuring.push(Math.max(...during));
      slowestAlone.push(Math.max(...alone));
    }
    const added = percentile(slowestDuring, 0.5) - percentile(slowestAlone, 0.5);
    console.log(`slowest small call per round (ms): with an 8.5 MB answer ${JSON.stringify(slowestDuring.map(Math.round))}, alone ${JSON.stringify(slowestAlone.map(Math.round))}; median added ${Math.round(added)} ms`);
    // Medians over rounds: a round the machine's other load hit, with or without the big answer, does not decide.
    expect(added).toBeLessThanOrEqual(ADDED_MS);
  }, 120_000);

  it('refuses an answer streamed past Gw:Downstream:MaxResponseBytes as a downstream error', async () => {
    const { reply } = await call(url, bigCaller, 'get_oversized');
    expect(reply.status).toBe(200);
    expect(reply.message.result).toMatchObject({ isError: true, _meta: { 'io.tollgate/error': { code: -32002, kind: 'downstream-error', reason: 'response-too-large', limitBytes: LIMIT_BYTES } } });
    expect(reply.message.result.content[0].text).toContain(`exceeds ${LIMIT_BYTES} bytes`);
  }, 20_000);

  it('refuses an answer whose declared Content-Length is past the limit without waiting for its body', async () => {
    const { reply, ms } = await call(url, bigCaller, 'get_declared_oversized');
    expect(reply.message.result).toMatchObject({ isError: true, _meta: { 'io.tollgate/error': { reason: 'response-too-large', limitBytes: LIMIT_BYTES } } });
    // The body never comes: only the header can have told the gateway (its timeout is 10 s).
    expect(ms).toBeLessThan(3_000);
  }, 20_000);
});
