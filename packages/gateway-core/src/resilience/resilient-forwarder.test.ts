import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CircuitOpenError, ConfigError, DownstreamCallError, InvalidInputError, OverloadedError } from '../errors.js';
import { HttpForwarder, type Forwarder } from '../forward/forwarder.js';
import { parseToolDefinitions, type ToolDefinition } from '../tools/definition.js';
import { createOrder, deleteCustomer, getCustomer } from '../testing/tool-fixtures.js';
import type { BreakerStateChange, ResilienceOptions } from './options.js';
import { createResilientForwarder } from './resilient-forwarder.js';

/** What the test downstream does with the next request: answer 200, answer with a status, answer late, or drop the connection. */
type Behaviour = 'ok' | 'reset' | { status: number } | { delayMs: number; then?: Behaviour };

/** A real HTTP server on a loopback port whose behaviour each test switches, counting what reaches it. */
class TestDownstream {
  hits = 0;
  behaviour: Behaviour = 'ok';
  /** Every POST answered 500 whatever `behaviour` says: one tool failing while the others work. */
  failPosts = false;
  /** Answers used before `behaviour`, one per request. */
  readonly script: Behaviour[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #port = 0;

  constructor() {
    this.#server = createServer((request, response) => {
      this.hits++;
      request.resume();
      this.#answer(
        this.failPosts && request.method === 'POST' ? { status: 500 } : (this.script.shift() ?? this.behaviour),
        response,
      );
    });
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** Listens on a free port the first time and on the same port after `stop()`. */
  async start(): Promise<void> {
    this.#server.listen(this.#port, '127.0.0.1');
    await once(this.#server, 'listening');
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  /** Closes the port: from now on connections are refused. */
  async stop(): Promise<void> {
    if (!this.#server.listening) return;
    for (const socket of this.#sockets) socket.destroy();
    this.#server.close();
    await once(this.#server, 'close');
  }

  #answer(behaviour: Behaviour, response: import('node:http').ServerResponse): void {
    if (behaviour === 'ok') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    } else if (behaviour === 'reset') {
      response.socket?.destroy();
    } else if ('status' in behaviour) {
      response.writeHead(behaviour.status, { 'content-type': 'application/json' }).end('{"error":"nope"}');
    } else {
      const timer = setTimeout(() => this.#answer(behaviour.then ?? 'ok', response), behaviour.delayMs);
      response.on('close', () => clearTimeout(timer));
    }
  }
}

function tool(definition: unknown): ToolDefinition {
  const { tools, problems } = parseToolDefinitions([definition]);
  expect(problems).toEqual([]);
  return tools[0]!;
}

const getTool = tool(getCustomer);
const postTool = tool(createOrder);
const deleteTool = tool(deleteCustomer);
const putTool = tool({ ...deleteCustomer, name: 'replaceCustomer', httpMethod: 'PUT' });
const patchTool = tool({ ...deleteCustomer, name: 'patchCustomer', httpMethod: 'PATCH' });
const getArgs = { id: 'c1' };
const postArgs = { customerId: 'c1', sku: 'sku-1', quantity: 1 };

let downstream: TestDownstream;
const inners: HttpForwarder[] = [];

beforeEach(async () => {
  downstream = new TestDownstream();
  await downstream.start();
});

afterEach(async () => {
  await Promise.all(inners.splice(0).map((inner) => inner.close()));
  await downstream.stop();
});

/** Counts calls into the real forwarder: attempts that never reach a server (refused connections) still show. */
function countingForwarder(timeoutMs: number): Forwarder & { attempts: number } {
  const inner = new HttpForwarder({ baseUrl: downstream.baseUrl, timeoutMs });
  inners.push(inner);
  const counting = {
    attempts: 0,
    forward: (...[tool, args, signal]: Parameters<Forwarder['forward']>) => {
      counting.attempts++;
      return inner.forward(tool, args, signal);
    },
  };
  return counting;
}

const fastBreaker = { failureThreshold: 3, breakMs: 150 };

function resilient(options: ResilienceOptions = {}, timeoutMs = options.deadlineMs ?? 2000) {
  const inner = countingForwarder(timeoutMs);
  const forwarder = createResilientForwarder(inner, { deadlineMs: timeoutMs, breaker: fastBreaker, ...options });
  return { forwarder, inner };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => error,
  );
}

async function downstreamFailure(promise: Promise<unknown>): Promise<DownstreamCallError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(DownstreamCallError);
  return error as DownstreamCallError;
}

/** Fails `count` POST calls (never retried) so each is one counted failure. */
async function failCalls(forwarder: Forwarder, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await downstreamFailure(forwarder.forward(postTool, postArgs));
}

describe('circuit breaker', () => {
  it('opens after the configured run of 5xx answers, then fails fast without reaching the downstream', async () => {
    const { forwarder } = resilient();
    downstream.behaviour = { status: 500 };
    await failCalls(forwarder, 2);
    expect(forwarder.breakerState).toBe('closed');
    await failCalls(forwarder, 1);
    expect(forwarder.breakerState).toBe('open');
    expect(downstream.hits).toBe(3);

    downstream.behaviour = 'ok';
    const started = performance.now();
    const error = await rejection(forwarder.forward(getTool, getArgs));
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect(error).toMatchObject({ httpStatus: 503, jsonRpcCode: -32003 });
    expect(performance.now() - started).toBeLessThan(100);
    expect(downstream.hits).toBe(3);
  });

  it('names its downstream in the refusal when given one (a gateway fronting several APIs)', async () => {
    const unnamed = resilient();
    const named = resilient({ downstream: 'orders' });
    downstream.behaviour = { status: 500 };
    await failCalls(unnamed.forwarder, 3);
    await failCalls(named.forwarder, 3);
    expect(((await rejection(unnamed.forwarder.forward(getTool, getArgs))) as Error).message).toBe(
      'The downstream API is isolated after repeated failures; try again shortly.',
    );
    expect(((await rejection(named.forwarder.forward(getTool, getArgs))) as Error).message).toBe(
      'The downstream API "orders" is isolated after repeated failures; try again shortly.',
    );
  });

  it('counts refused connections and timeouts as failures', async () => {
    const refused = resilient({ retry: { retries: 0 } });
    await downstream.stop();
    for (let i = 0; i < 3; i++)
      expect((await downstreamFailure(refused.forwarder.forward(getTool, getArgs))).data).toMatchObject({
        reason: 'network',
      });
    expect(refused.forwarder.breakerState).toBe('open');
    await downstream.start();

    const slow = resilient({ deadlineMs: 100 });
    downstream.behaviour = { delayMs: 1000 };
    for (let i = 0; i < 3; i++)
      expect((await downstreamFailure(slow.forwarder.forward(getTool, getArgs))).data).toEqual({
        reason: 'timeout',
        timeoutMs: 100,
      });
    expect(slow.forwarder.breakerState).toBe('open');
  });

  it('does not count 4xx answers: the downstream is healthy, the call was wrong', async () => {
    const { forwarder } = resilient();
    downstream.behaviour = { status: 404 };
    for (let i = 0; i < 6; i++) {
      expect((await downstreamFailure(forwarder.forward(getTool, getArgs))).data).toEqual({
        reason: 'status',
        downstreamStatus: 404,
      });
    }
    expect(forwarder.breakerState).toBe('closed');
    expect(downstream.hits).toBe(6);
  });

  it('does not count calls the caller cancelled', async () => {
    const { forwarder } = resilient();
    downstream.behaviour = { delayMs: 1000 };
    for (let i = 0; i < 4; i++) {
      const error = await downstreamFailure(forwarder.forward(getTool, getArgs, AbortSignal.timeout(20)));
      expect(error.data).toEqual({ reason: 'aborted' });
    }
    expect(forwarder.breakerState).toBe('closed');
  });

  it('a success between failures resets the run in consecutive mode', async () => {
    const { forwarder } = resilient();
    downstream.script.push({ status: 500 }, { status: 500 }, 'ok', { status: 500 }, { status: 500 });
    await failCalls(forwarder, 2);
    await forwarder.forward(postTool, postArgs);
    await failCalls(forwarder, 2);
    expect(forwarder.breakerState).toBe('closed');
  });

  it('after the break lets exactly one probe through while concurrent calls fail fast; its success closes', async () => {
    const changes: BreakerStateChange[] = [];
    const { forwarder } = resilient({ onStateChange: (change) => changes.push(change) });
    downstream.behaviour = { status: 500 };
    await failCalls(forwarder, 3);
    await sleep(fastBreaker.breakMs + 30);
    expect(forwarder.breakerState).toBe('open'); // half-open starts with the next call

    downstream.behaviour = { delayMs: 150 };
    const hitsBefore = downstream.hits;
    const probe = forwarder.forward(getTool, getArgs);
    expect(forwarder.breakerState).toBe('half-open');
    const others = await Promise.all(Array.from({ length: 5 }, () => rejection(forwarder.forward(getTool, getArgs))));
    for (const error of others) expect(error).toBeInstanceOf(CircuitOpenError);

    await expect(probe).resolves.toMatchObject({ status: 200, body: { ok: true } });
    expect(downstream.hits - hitsBefore).toBe(1);
    expect(forwarder.breakerState).toBe('closed');
    expect(changes.map(({ from, to }) => `${from}->${to}`)).toEqual([
      'closed->open',
      'open->half-open',
      'half-open->closed',
    ]);
    expect(changes[0]!.failure).toEqual({ reason: 'status', downstreamStatus: 500 });

    await expect(forwarder.forward(getTool, getArgs)).resolves.toMatchObject({ status: 200 });
  });

  it('a failed probe reopens the circuit for another break, and the probe is not retried', async () => {
    const { forwarder } = resilient();
    downstream.behaviour = { status: 503 };
    await failCalls(forwarder, 3);
    await sleep(fastBreaker.breakMs + 30);

    const hitsBefore = downstream.hits;
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs))).data).toEqual({
      reason: 'status',
      downstreamStatus: 503,
    });
    expect(downstream.hits - hitsBefore).toBe(1);
    expect(forwarder.breakerState).toBe('open');
    expect(await rejection(forwarder.forward(getTool, getArgs))).toBeInstanceOf(CircuitOpenError);
    expect(downstream.hits - hitsBefore).toBe(1);

    downstream.behaviour = 'ok';
    await sleep(fastBreaker.breakMs + 30);
    await expect(forwarder.forward(getTool, getArgs)).resolves.toMatchObject({ status: 200 });
    expect(forwarder.breakerState).toBe('closed');
  });

  it('isolates a downstream that went away and closes once it is back', async () => {
    const { forwarder } = resilient({ retry: { retries: 0 } });
    await downstream.stop();
    for (let i = 0; i < 3; i++) await downstreamFailure(forwarder.forward(getTool, getArgs));
    await downstream.start();
    expect(await rejection(forwarder.forward(getTool, getArgs))).toBeInstanceOf(CircuitOpenError);
    expect(downstream.hits).toBe(0);

    await sleep(fastBreaker.breakMs + 30);
    await expect(forwarder.forward(getTool, getArgs)).resolves.toMatchObject({ status: 200 });
    expect(forwarder.breakerState).toBe('closed');
  });

  it('a probe whose caller leaves is neutral: the caller is answered at once, the probe runs on and its answer closes the circuit', async () => {
    const { forwarder } = resilient();
    downstream.behaviour = { status: 500 };
    await failCalls(forwarder, 3);
    await sleep(fastBreaker.breakMs + 30);

    downstream.behaviour = { delayMs: 200 };
    const hitsBefore = downstream.hits;
    const started = performance.now();
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs, AbortSignal.timeout(20)))).data).toEqual({
      reason: 'aborted',
    });
    expect(performance.now() - started).toBeLessThan(100);
    // Still the probe's turn: the others fail fast until its answer.
    expect(forwarder.breakerState).toBe('half-open');
    expect(await rejection(forwarder.forward(getTool, getArgs))).toBeInstanceOf(CircuitOpenError);
    await sleep(300);
    expect(downstream.hits - hitsBefore).toBe(1);
    expect(forwarder.breakerState).toBe('closed');
    await expect(forwarder.forward(getTool, getArgs)).resolves.toMatchObject({ status: 200 });
  });

  it('a probe whose caller leaves still reopens the circuit when the downstream fails it', async () => {
    const { forwarder } = resilient();
    downstream.behaviour = { status: 500 };
    await failCalls(forwarder, 3);
    await sleep(fastBreaker.breakMs + 30);

    downstream.behaviour = { delayMs: 100, then: { status: 500 } };
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs, AbortSignal.timeout(20)))).data).toEqual({
      reason: 'aborted',
    });
    await sleep(150);
    expect(forwarder.breakerState).toBe('open');
    expect(await rejection(forwarder.forward(getTool, getArgs))).toBeInstanceOf(CircuitOpenError);
  });

  it('a probe that cannot be sent (bad route value) is refused before it becomes the probe: the next call probes', async () => {
    const { forwarder } = resilient();
    downstream.behaviour = { status: 500 };
    await failCalls(forwarder, 3);
    await sleep(fastBreaker.breakMs + 30);

    downstream.behaviour = 'ok';
    const hitsBefore = downstream.hits;
    for (let i = 0; i < 3; i++)
      expect(await rejection(forwarder.forward(getTool, { id: '..' }))).toBeInstanceOf(InvalidInputError);
    expect(downstream.hits).toBe(hitsBefore);
    expect(forwarder.breakerState).toBe('open');
    await expect(forwarder.forward(getTool, getArgs)).resolves.toMatchObject({ status: 200 });
    expect(forwarder.breakerState).toBe('closed');
  });

  it('never closes the circuit on a probe refused before it was sent', async () => {
    // A forwarder whose refusal the pre-check cannot foresee: the breaker itself keeps the circuit open.
    let refuse = false;
    const inner = countingForwarder(1000);
    const refusing: Forwarder = {
      forward: (...call) =>
        refuse ? Promise.reject(new InvalidInputError('refused before sending', [])) : inner.forward(...call),
    };
    const forwarder = createResilientForwarder(refusing, { breaker: fastBreaker });
    downstream.behaviour = { status: 500 };
    await failCalls(forwarder, 3);
    await sleep(fastBreaker.breakMs + 30);

    refuse = true;
    expect(await rejection(forwarder.forward(getTool, getArgs))).toBeInstanceOf(InvalidInputError);
    expect(forwarder.breakerState).toBe('open');
  });

  it('a probe answered with 4xx closes the circuit: the downstream is up', async () => {
    const { forwarder } = resilient();
    downstream.behaviour = { status: 500 };
    await failCalls(forwarder, 3);
    await sleep(fastBreaker.breakMs + 30);

    downstream.behaviour = { status: 404 };
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs))).data).toEqual({
      reason: 'status',
      downstreamStatus: 404,
    });
    expect(forwarder.breakerState).toBe('closed');
  });

  it('in ratio mode opens when more than the ratio failed in the window, once enough calls were made', async () => {
    const { forwarder } = resilient({
      breaker: { mode: 'ratio', failureRatio: 0.5, minimumCalls: 4, windowMs: 10_000, breakMs: 1000 },
    });
    downstream.script.push('ok', 'ok', { status: 500 }, { status: 500 });
    await forwarder.forward(postTool, postArgs);
    await forwarder.forward(postTool, postArgs);
    await failCalls(forwarder, 2); // 2 of 4 failed: not more than half
    expect(forwarder.breakerState).toBe('closed');

    downstream.behaviour = { status: 500 };
    await failCalls(forwarder, 1); // 3 of 5
    expect(forwarder.breakerState).toBe('open');
  });

  it('in ratio mode waits for the minimum number of calls', async () => {
    const { forwarder } = resilient({
      breaker: { mode: 'ratio', failureRatio: 0.5, minimumCalls: 4, windowMs: 10_000 },
    });
    downstream.behaviour = { status: 500 };
    await failCalls(forwarder, 3);
    expect(forwarder.breakerState).toBe('closed');
    await failCalls(forwarder, 1);
    expect(forwarder.breakerState).toBe('open');
  });
});

describe('circuit breaker with several callers (issue 25 finding 4)', () => {
  const threshold = 3;
  const slowBreaker = { failureThreshold: threshold, breakMs: 60_000 };
  const callOf = (forwarder: Forwarder, agentId: string, which: 'get' | 'post') =>
    which === 'get'
      ? forwarder.forward(getTool, getArgs, undefined, { agentId })
      : forwarder.forward(postTool, postArgs, undefined, { agentId });

  it("keeps a bystander's calls going while one agent hammers a failing tool, and holds that agent back on its own", async () => {
    const { forwarder } = resilient({ breaker: slowBreaker });
    downstream.failPosts = true;
    await callOf(forwarder, 'bystander', 'get');
    let served = 0;
    const rounds = 40;
    for (let round = 0; round < rounds; round++) {
      // A burst of 8 failing calls from one agent beside one call of the bystander.
      const burst = Array.from({ length: 8 }, () =>
        callOf(forwarder, 'hammer', 'post').catch((error: unknown) => error),
      );
      const bystander = await callOf(forwarder, 'bystander', 'get').then(
        () => true,
        () => false,
      );
      if (bystander) served++;
      const errors = await Promise.all(burst);
      expect(errors.every((error) => error instanceof DownstreamCallError || error instanceof CircuitOpenError)).toBe(
        true,
      );
    }
    expect(served / rounds).toBeGreaterThanOrEqual(0.95);
    expect(forwarder.breakerState).toBe('closed');
    // The agent is held back: its calls are refused without reaching the downstream.
    const hits = downstream.hits;
    const refused = await rejection(callOf(forwarder, 'hammer', 'post'));
    expect(refused).toBeInstanceOf(CircuitOpenError);
    expect((refused as Error).message).toMatch(/your calls/i);
    expect(downstream.hits).toBe(hits);
  });

  it('still opens for everyone within the configured threshold when every caller fails', async () => {
    const { forwarder } = resilient({ breaker: slowBreaker });
    // Both worked a moment ago: the downstream then fails for each of them.
    await callOf(forwarder, 'a', 'get');
    await callOf(forwarder, 'b', 'get');
    downstream.behaviour = { status: 500 };
    const hitsBefore = downstream.hits;
    const callers = ['a', 'b'];
    for (let i = 0; forwarder.breakerState === 'closed' && i < 10; i++) {
      await downstreamFailure(callOf(forwarder, callers[i % 2]!, 'post'));
    }
    expect(forwarder.breakerState).toBe('open');
    expect(downstream.hits - hitsBefore).toBe(threshold);
    // A third agent, which never failed, is refused at once too: the downstream is isolated.
    expect(await rejection(callOf(forwarder, 'c', 'get'))).toBeInstanceOf(CircuitOpenError);
    expect(downstream.hits - hitsBefore).toBe(threshold);
  });

  it('opens for a lone caller as before when no other caller shows the downstream working', async () => {
    const { forwarder } = resilient({ breaker: slowBreaker });
    downstream.behaviour = { status: 500 };
    for (let i = 0; i < threshold; i++) await downstreamFailure(callOf(forwarder, 'only', 'post'));
    expect(forwarder.breakerState).toBe('open');
  });
});

describe('connection slots', () => {
  it('starts the deadline once the call holds a slot: time queued in the gateway is never a timeout', async () => {
    const { forwarder } = resilient({ connections: 1, deadlineMs: 300 });
    downstream.behaviour = { delayMs: 120 };
    // Three calls on one slot take 360 ms in all, more than one deadline; each gets its own 300 ms.
    const results = await Promise.all([1, 2, 3].map(() => forwarder.forward(postTool, postArgs)));
    for (const result of results) expect(result.status).toBe(200);
    expect(forwarder.breakerState).toBe('closed');
  });

  it('refuses a call that gets no slot within its deadline as overloaded, which the breaker never counts', async () => {
    const { forwarder } = resilient({
      connections: 1,
      deadlineMs: 250,
      breaker: { failureThreshold: 1, breakMs: 10_000 },
    });
    downstream.behaviour = { delayMs: 200 };
    const calls = [1, 2, 3].map(() =>
      forwarder.forward(postTool, postArgs).then(
        () => 'ok',
        (error: unknown) => error,
      ),
    );
    const [first, second, third] = await Promise.all(calls);
    expect([first, second]).toEqual(['ok', 'ok']);
    expect(third).toBeInstanceOf(OverloadedError);
    expect(third).toMatchObject({
      httpStatus: 503,
      jsonRpcCode: -32003,
      code: 'overloaded',
      data: { retryAfterSeconds: 1 },
    });
    expect(downstream.hits).toBe(2);
    // One counted failure would have opened it.
    expect(forwarder.breakerState).toBe('closed');
  });

  it('ends a wait for a slot at once when the caller leaves; nothing is sent and nothing counted', async () => {
    const { forwarder } = resilient({ connections: 1, breaker: { failureThreshold: 1, breakMs: 10_000 } });
    downstream.behaviour = { delayMs: 300 };
    const holder = forwarder.forward(postTool, postArgs);
    await sleep(20);
    const started = performance.now();
    expect((await downstreamFailure(forwarder.forward(postTool, postArgs, AbortSignal.timeout(30)))).data).toEqual({
      reason: 'aborted',
    });
    expect(performance.now() - started).toBeLessThan(150);
    await expect(holder).resolves.toMatchObject({ status: 200 });
    expect(downstream.hits).toBe(1);
    expect(forwarder.breakerState).toBe('closed');
  });

  it('gives the slot back on every ending: answer, error answer, timeout, network error, cancel, refusal before sending', async () => {
    const { forwarder } = resilient({
      connections: 1,
      deadlineMs: 100,
      retry: { retries: 0 },
      breaker: { failureThreshold: 100 },
    });
    downstream.script.push('ok', { status: 500 }, { delayMs: 500 }, 'reset', { delayMs: 500 });
    await forwarder.forward(getTool, getArgs);
    await downstreamFailure(forwarder.forward(getTool, getArgs));
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs))).data).toMatchObject({ reason: 'timeout' });
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs))).data).toMatchObject({ reason: 'network' });
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs, AbortSignal.timeout(20)))).data).toEqual({
      reason: 'aborted',
    });
    expect(await rejection(forwarder.forward(getTool, { id: '..' }))).toBeInstanceOf(InvalidInputError);
    // With the one slot still held by any of them, this would wait and be refused as overloaded.
    await expect(forwarder.forward(getTool, getArgs)).resolves.toMatchObject({ status: 200 });
  });

  it("shares the slots between agents by turns: a quiet agent is served before a flooding agent's backlog", async () => {
    const { forwarder } = resilient({ connections: 1, deadlineMs: 5000 });
    downstream.behaviour = { delayMs: 40 };
    const finished: string[] = [];
    const call = (agentId: string, label: string) =>
      forwarder.forward(postTool, postArgs, undefined, { agentId }).then(() => finished.push(label));
    const flood = ['f1', 'f2', 'f3', 'f4', 'f5'].map((label) => call('flood', label));
    await sleep(5);
    const quiet = call('quiet', 'q1');
    await Promise.all([...flood, quiet]);
    expect(finished.indexOf('q1')).toBe(2);
  });
});

describe('retries', () => {
  it('retries a GET on 503 at most twice, then reports the 503', async () => {
    const { forwarder } = resilient({ breaker: { failureThreshold: 10 } });
    downstream.behaviour = { status: 503 };
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs))).data).toEqual({
      reason: 'status',
      downstreamStatus: 503,
    });
    expect(downstream.hits).toBe(3);
  });

  it.each([502, 504])('retries a GET on %i and returns the answer that follows', async (status) => {
    const { forwarder } = resilient();
    downstream.script.push({ status });
    await expect(forwarder.forward(getTool, getArgs)).resolves.toMatchObject({ status: 200 });
    expect(downstream.hits).toBe(2);
  });

  it('a retried call counts once for the breaker', async () => {
    const { forwarder } = resilient({ breaker: { failureThreshold: 2, breakMs: 1000 } });
    downstream.behaviour = { status: 503 };
    await downstreamFailure(forwarder.forward(getTool, getArgs));
    expect(downstream.hits).toBe(3);
    expect(forwarder.breakerState).toBe('closed');
  });

  it('retries a GET when the connection is dropped or refused', async () => {
    const { forwarder, inner } = resilient({ breaker: { failureThreshold: 10 } });
    downstream.script.push('reset', 'reset');
    await expect(forwarder.forward(getTool, getArgs)).resolves.toMatchObject({ status: 200 });
    expect(downstream.hits).toBe(3);

    await downstream.stop();
    inner.attempts = 0;
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs))).data).toMatchObject({
      reason: 'network',
      code: 'ECONNREFUSED',
    });
    expect(inner.attempts).toBe(3);
  });

  it('does not retry a GET on 500, 4xx or a timeout', async () => {
    const { forwarder, inner } = resilient({ breaker: { failureThreshold: 10 }, deadlineMs: 150 });
    for (const behaviour of [{ status: 500 }, { status: 429 }, { delayMs: 1000 }] as Behaviour[]) {
      downstream.behaviour = behaviour;
      inner.attempts = 0;
      await downstreamFailure(forwarder.forward(getTool, getArgs));
      expect(inner.attempts).toBe(1);
    }
  });

  it.each([
    ['POST', postTool, postArgs],
    ['PUT', putTool, getArgs],
    ['PATCH', patchTool, getArgs],
    ['DELETE', deleteTool, getArgs],
  ] as const)('never retries %s, not on 503 nor on a dropped connection', async (_verb, target, args) => {
    const { forwarder } = resilient({ breaker: { failureThreshold: 10 } });
    downstream.behaviour = { status: 503 };
    await downstreamFailure(forwarder.forward(target, args));
    expect(downstream.hits).toBe(1);
    downstream.behaviour = 'reset';
    expect((await downstreamFailure(forwarder.forward(target, args))).data).toMatchObject({ reason: 'network' });
    expect(downstream.hits).toBe(2);
  });

  it('keeps every retry inside the one deadline', async () => {
    const deadlineMs = 300;
    const { forwarder } = resilient({
      breaker: { failureThreshold: 10 },
      deadlineMs,
      retry: { minDelayMs: 100, maxDelayMs: 100 },
    });
    // Each attempt takes 120 ms: the first ends at 120, the retry starts at 220 and would end at 340.
    downstream.behaviour = { delayMs: 120, then: { status: 503 } };
    const started = performance.now();
    const error = await downstreamFailure(forwarder.forward(getTool, getArgs));
    const elapsed = performance.now() - started;
    expect(error.data).toEqual({ reason: 'timeout', timeoutMs: deadlineMs });
    expect(downstream.hits).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(deadlineMs - 5);
    expect(elapsed).toBeLessThan(deadlineMs + 100);
  });

  it('skips a retry whose wait would not fit in the deadline and reports the real failure', async () => {
    const { forwarder } = resilient({
      breaker: { failureThreshold: 10 },
      deadlineMs: 200,
      retry: { minDelayMs: 250, maxDelayMs: 250 },
    });
    downstream.behaviour = { status: 503 };
    const started = performance.now();
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs))).data).toEqual({
      reason: 'status',
      downstreamStatus: 503,
    });
    expect(performance.now() - started).toBeLessThan(150);
    expect(downstream.hits).toBe(1);
  });

  it('stops waiting between attempts when the caller cancels', async () => {
    const { forwarder } = resilient({
      breaker: { failureThreshold: 10 },
      retry: { minDelayMs: 1000, maxDelayMs: 1000 },
    });
    downstream.behaviour = { status: 503 };
    const started = performance.now();
    expect((await downstreamFailure(forwarder.forward(getTool, getArgs, AbortSignal.timeout(100)))).data).toEqual({
      reason: 'aborted',
    });
    expect(performance.now() - started).toBeLessThan(500);
    expect(downstream.hits).toBe(1);
    expect(forwarder.breakerState).toBe('closed');
  });
});

describe('options', () => {
  it.each([
    [{ breaker: { failureThreshold: 0 } }, 'breaker.failureThreshold'],
    [{ breaker: { mode: 'sometimes' as never } }, 'breaker.mode'],
    [{ breaker: { failureRatio: 1 } }, 'breaker.failureRatio'],
    [{ breaker: { minimumCalls: 2.5 } }, 'breaker.minimumCalls'],
    [{ breaker: { windowMs: 0 } }, 'breaker.windowMs'],
    [{ breaker: { breakMs: -1 } }, 'breaker.breakMs'],
    [{ retry: { retries: 3 } }, 'retry.retries'],
    [{ retry: { minDelayMs: 300, maxDelayMs: 250 } }, 'retry.maxDelayMs'],
    [{ deadlineMs: Number.NaN }, 'deadlineMs'],
    [{ connections: 0 }, 'connections'],
  ] as [ResilienceOptions, string][])('refuses %j naming %s', (options, path) => {
    const inner = countingForwarder(1000);
    expect(() => createResilientForwarder(inner, options)).toThrow(ConfigError);
    expect(() => createResilientForwarder(inner, options)).toThrow(
      expect.objectContaining({ problems: [expect.objectContaining({ path })] }),
    );
  });

  it('lists every problem at once', () => {
    const options: ResilienceOptions = { breaker: { failureThreshold: 0, windowMs: -1 }, retry: { retries: 5 } };
    expect(() => createResilientForwarder(countingForwarder(1000), options)).toThrow(
      expect.objectContaining({
        problems: ['breaker.failureThreshold', 'breaker.windowMs', 'retry.retries'].map((path) =>
          expect.objectContaining({ path }),
        ),
      }),
    );
  });

  it('starts closed with defaults and leaves undefined values to them', async () => {
    const inner = countingForwarder(1000);
    const forwarder = createResilientForwarder(inner, { breaker: { failureThreshold: undefined }, retry: {} });
    expect(forwarder.breakerState).toBe('closed');
    await expect(forwarder.forward(getTool, getArgs)).resolves.toMatchObject({ status: 200 });
  });
});
