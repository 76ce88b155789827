import { countTokens } from '@tollgate/gateway-core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditedCall, type AuditedCall } from './support/audited-call.js';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { startDownstream, type RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

const redisAvailable = redisServerAvailable('the cache shared by two gateway instances on Redis');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The semantic tier embeds a stored call's text after the answer is sent; give it that moment. */
const EMBEDDING_SETTLE_MS = 1_000;

/** How long a write through one instance may go unnoticed by another (gateway-core's default, kept on Redis too: issue 25, finding 13). */
const GENERATION_REFRESH_MS = 1_000;

/** A gateway with an admin token, and a way to call tools as one agent and see the call's audit record. */
class TestGateway {
  readonly api: GatewayClient;
  constructor(
    readonly process: RunningProcess,
    readonly admin: string,
  ) {
    this.api = new GatewayClient(process.url);
  }

  /** A gateway of a started (and ready) pair. */
  static async of(process: RunningProcess): Promise<TestGateway> {
    return new TestGateway(process, await new GatewayClient(process.url).adminToken());
  }

  agent(settings: Record<string, unknown>): Promise<TestAgent> {
    return createAgentWithToken(this.api, this.admin, {
      label: 'cache test',
      dailyTokenBudget: 1_000_000,
      ...settings,
    });
  }

  call(agent: TestAgent, name: string, args: Record<string, unknown>): Promise<AuditedCall> {
    return auditedCall(this.process.url, this.api, this.admin, agent.token, name, args);
  }

  async used(agent: TestAgent): Promise<number> {
    return (await this.api.request('GET', `/management/agents/${agent.agentId}/budget`, this.admin)).body.used;
  }
}

/** What the downstream itself says now, bypassing the gateway. */
async function stockAt(downstreamUrl: string, sku: string): Promise<number> {
  return ((await fetch(`${downstreamUrl}/products/${sku}`).then((response) => response.json())) as { stock: number })
    .stock;
}

/** Changes the downstream behind the gateway's back (no gateway call, so no invalidation). */
async function restockDirectly(downstreamUrl: string, sku: string, quantity: number): Promise<void> {
  const response = await fetch(`${downstreamUrl}/inventory/${sku}/restock`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ quantity }),
  });
  expect(response.status).toBe(200);
}

const served = (call: AuditedCall) => {
  expect(call.reply.status).toBe(200);
  return JSON.parse(call.text!);
};

/**
 * The response cache at process level (issue 7): exact and semantic tiers,
 * hits charged and audited, ids never matched by similarity, writes
 * invalidate, refusals come before the cache, opt-outs, and one cache for
 * every instance on a shared Redis. Issue 16: each agent's answers apart,
 * and no semantic hit across a negation or an opposite (search_products
 * opts in to the semantic tier).
 */
describe('response cache (dist/main.js + sample downstream)', () => {
  let downstream: RunningProcess;

  beforeAll(async () => {
    downstream = await startDownstream();
  });
  afterAll(async () => {
    await downstream?.stop();
  });

  describe('one gateway, default cache settings (get_order opted out)', () => {
    let pair: Pair;
    let gateway: TestGateway;
    let reader: TestAgent;

    beforeAll(async () => {
      pair = await startPair({
        downstream,
        gateway: { env: { ...HTTP_STATUS_DELIVERY, Gw__Cache__Tools__get_order__Enabled: 'false' } },
      });
      gateway = await TestGateway.of(pair.gateway);
      reader = await gateway.agent({ scopes: ['customers:read'] });
    });
    afterAll(() => pair?.stop());

    it('answers a repeated read from the exact tier, audited as a cache hit and charged like a call', async () => {
      const before = await gateway.used(reader);
      const first = await gateway.call(reader, 'get_product', { sku: 'MN-270' });
      const tokens = countTokens(first.text!);
      expect(first.record).toMatchObject({
        outcome: 'ok',
        cacheTier: null,
        downstreamStatus: 200,
        tokensCharged: tokens,
      });
      expect(first.record.downstreamMs).toEqual(expect.any(Number));

      // The downstream changes behind the gateway's back: an answer from the cache still shows the old stock.
      const stock = served(first).stock as number;
      await restockDirectly(downstream.url, 'MN-270', 1);
      expect(await stockAt(downstream.url, 'MN-270')).toBe(stock + 1);

      const second = await gateway.call(reader, 'get_product', { sku: 'MN-270' });
      expect(second.text).toBe(first.text);
      expect(second.record).toMatchObject({
        outcome: 'cache-hit',
        cacheTier: 'exact',
        httpStatus: 200,
        downstreamStatus: null,
        downstreamMs: null,
        tokensCharged: tokens,
      });
      expect(second.reply.headers.get('server-timing')).toContain('cache;desc=exact');
      expect(await gateway.used(reader)).toBe(before + 2 * tokens);
    });

    it('answers a paraphrased free-text query from the semantic tier', async () => {
      const first = await gateway.call(reader, 'search_products', { q: 'wireless noise cancelling headphones' });
      expect(first.record).toMatchObject({ outcome: 'ok', cacheTier: null });
      await sleep(EMBEDDING_SETTLE_MS);
      const paraphrase = await gateway.call(reader, 'search_products', { q: 'Noise cancelling  wireless headphones' });
      expect(paraphrase.record).toMatchObject({
        outcome: 'cache-hit',
        cacheTier: 'semantic',
        downstreamStatus: null,
        tokensCharged: countTokens(first.text!),
      });
      expect(paraphrase.text).toBe(first.text);
    });

    it('matches the other arguments exactly: the same words with a different category go to the downstream', async () => {
      const first = await gateway.call(reader, 'search_products', {
        q: 'compact usb-c cable',
        category: 'accessories',
      });
      expect(first.record.outcome).toBe('ok');
      await sleep(EMBEDDING_SETTLE_MS);
      const other = await gateway.call(reader, 'search_products', { q: 'compact usb-c cable', category: 'hardware' });
      expect(other.record).toMatchObject({ outcome: 'ok', cacheTier: null, downstreamStatus: 200 });
    });

    it('never matches ids or numbers by similarity', async () => {
      const keyboard = await gateway.call(reader, 'get_product', { sku: 'KB-100' });
      await sleep(EMBEDDING_SETTLE_MS);
      const mouse = await gateway.call(reader, 'get_product', { sku: 'MS-210' });
      expect(mouse.record).toMatchObject({ outcome: 'ok', cacheTier: null });
      expect(served(mouse).sku).toBe('MS-210');
      expect(served(keyboard).sku).toBe('KB-100');

      const customer = await gateway.call(reader, 'get_customer', { id: 4 });
      await sleep(EMBEDDING_SETTLE_MS);
      const neighbour = await gateway.call(reader, 'get_customer', { id: 5 });
      expect(neighbour.record).toMatchObject({ outcome: 'ok', cacheTier: null });
      expect([served(customer).id, served(neighbour).id]).toEqual([4, 5]);

      // Numbers inside free text must match exactly too.
      await gateway.call(reader, 'search_products', { q: 'laptop stands under 1000 dollars' });
      await sleep(EMBEDDING_SETTLE_MS);
      const pricier = await gateway.call(reader, 'search_products', { q: 'laptop stands under 2000 dollars' });
      expect(pricier.record).toMatchObject({ outcome: 'ok', cacheTier: null });
    });

    it("never answers one agent from another agent's cached calls, exact or semantic", async () => {
      const other = await gateway.agent({ scopes: ['customers:read'] });
      await gateway.call(reader, 'get_product', { sku: 'DK-050' });
      await gateway.call(reader, 'search_products', { q: 'mechanical keyboards for typing' });
      await sleep(EMBEDDING_SETTLE_MS);
      expect((await gateway.call(other, 'get_product', { sku: 'DK-050' })).record).toMatchObject({
        outcome: 'ok',
        cacheTier: null,
        downstreamStatus: 200,
      });
      expect(
        (await gateway.call(other, 'search_products', { q: 'Mechanical keyboards for typing' })).record,
      ).toMatchObject({ outcome: 'ok', cacheTier: null });
      // The same calls by the agent that made the first ones are hits: the misses above are the partition.
      expect((await gateway.call(reader, 'get_product', { sku: 'DK-050' })).record).toMatchObject({
        outcome: 'cache-hit',
        cacheTier: 'exact',
      });
      expect(
        (await gateway.call(reader, 'search_products', { q: 'Mechanical keyboards for typing' })).record,
      ).toMatchObject({ outcome: 'cache-hit', cacheTier: 'semantic' });
    });

    it('never answers a negated or opposite query from the semantic tier', async () => {
      await gateway.call(reader, 'search_products', { q: 'wireless keyboards' });
      await gateway.call(reader, 'search_products', { q: 'cheap monitors' });
      await sleep(EMBEDDING_SETTLE_MS);
      for (const q of ['keyboards that are not wireless', 'expensive monitors', 'wireless keyboard stands']) {
        expect((await gateway.call(reader, 'search_products', { q })).record, q).toMatchObject({
          outcome: 'ok',
          cacheTier: null,
        });
      }
    });

    it('never answers an opted-out tool from the cache', async () => {
      await gateway.call(reader, 'get_order', { id: 1003 });
      const again = await gateway.call(reader, 'get_order', { id: 1003 });
      expect(again.record).toMatchObject({ outcome: 'ok', cacheTier: null, downstreamStatus: 200 });
    });

    it('gives nothing from the cache to an agent without the scope or without budget', async () => {
      const cached = await gateway.call(reader, 'list_customers', { limit: 3 });
      expect(cached.record.outcome).toBe('ok');
      expect((await gateway.call(reader, 'list_customers', { limit: 3 })).record.outcome).toBe('cache-hit');

      const unscoped = await gateway.agent({ scopes: [] });
      const refused = await gateway.call(unscoped, 'list_customers', { limit: 3 });
      expect(refused.reply.status).toBe(403);
      expect(refused.reply.message.error.code).toBe(-32003);
      expect(refused.reply.message.result).toBeUndefined();
      expect(refused.record).toMatchObject({ outcome: 'forbidden', cacheTier: null, tokensCharged: 0 });

      const broke = await gateway.agent({ dailyTokenBudget: 0, scopes: ['customers:read'] });
      const exhausted = await gateway.call(broke, 'list_customers', { limit: 3 });
      expect(exhausted.reply.status).toBe(429);
      expect(exhausted.reply.message.error.code).toBe(-32029);
      expect(exhausted.reply.message.result).toBeUndefined();
      expect(exhausted.record).toMatchObject({ outcome: 'budget-exhausted', cacheTier: null, tokensCharged: 0 });
      expect(await gateway.used(broke)).toBe(0);
    });

    it('sends the next read to the downstream after a write through the gateway', async () => {
      const writer = await gateway.agent({ scopes: ['catalog:write'] });
      const level = await gateway.call(writer, 'stockLevel', { sku: 'ST-300' });
      const product = await gateway.call(writer, 'get_product', { sku: 'ST-300' });
      expect((await gateway.call(writer, 'stockLevel', { sku: 'ST-300' })).record.outcome).toBe('cache-hit');
      expect((await gateway.call(writer, 'get_product', { sku: 'ST-300' })).record.outcome).toBe('cache-hit');

      const restock = await gateway.call(writer, 'restockProduct', { sku: 'ST-300', quantity: 5 });
      expect(restock.record).toMatchObject({ outcome: 'ok', cacheTier: null, downstreamStatus: 200 });

      const levelAfter = await gateway.call(writer, 'stockLevel', { sku: 'ST-300' });
      expect(levelAfter.record).toMatchObject({ outcome: 'ok', cacheTier: null, downstreamStatus: 200 });
      expect(served(levelAfter).stock).toBe(served(level).stock + 5);
      // Every cached read is gone, not only the one of the tool written through.
      const productAfter = await gateway.call(writer, 'get_product', { sku: 'ST-300' });
      expect(productAfter.record).toMatchObject({ outcome: 'ok', cacheTier: null });
      expect(served(productAfter).stock).toBe(served(product).stock + 5);
    });
  });

  describe('Gw:Cache:Enabled=false', () => {
    let pair: Pair;
    let gateway: TestGateway;
    beforeAll(async () => {
      pair = await startPair({ downstream, gateway: { env: { Gw__Cache__Enabled: 'false' } } });
      gateway = await TestGateway.of(pair.gateway);
    });
    afterAll(() => pair?.stop());

    it('asks the downstream every time', async () => {
      const agent = await gateway.agent({});
      const first = await gateway.call(agent, 'get_product', { sku: 'PD-010' });
      await restockDirectly(downstream.url, 'PD-010', 2);
      const second = await gateway.call(agent, 'get_product', { sku: 'PD-010' });
      for (const call of [first, second])
        expect(call.record).toMatchObject({ outcome: 'ok', cacheTier: null, downstreamStatus: 200 });
      expect(served(second).stock).toBe(served(first).stock + 2);

      await gateway.call(agent, 'search_products', { q: 'wireless noise cancelling headphones' });
      await sleep(EMBEDDING_SETTLE_MS);
      const paraphrase = await gateway.call(agent, 'search_products', { q: 'Noise cancelling  wireless headphones' });
      expect(paraphrase.record).toMatchObject({ outcome: 'ok', cacheTier: null });
    });
  });

  describe('Gw:Cache:Tools:search_products:Semantic=false (the operator turns off what the tool opts into)', () => {
    let pair: Pair;
    let gateway: TestGateway;
    beforeAll(async () => {
      pair = await startPair({
        downstream,
        gateway: { env: { Gw__Cache__Tools__search_products__Semantic: 'false' } },
      });
      gateway = await TestGateway.of(pair.gateway);
    });
    afterAll(() => pair?.stop());

    it('answers the same search from the exact tier and a paraphrase from the downstream', async () => {
      const agent = await gateway.agent({});
      await gateway.call(agent, 'search_products', { q: 'wireless noise cancelling headphones' });
      await sleep(EMBEDDING_SETTLE_MS);
      expect(
        (await gateway.call(agent, 'search_products', { q: 'wireless noise cancelling headphones' })).record,
      ).toMatchObject({ outcome: 'cache-hit', cacheTier: 'exact' });
      expect(
        (await gateway.call(agent, 'search_products', { q: 'Noise cancelling  wireless headphones' })).record,
      ).toMatchObject({ outcome: 'ok', cacheTier: null });
    });
  });

  describe.runIf(redisAvailable)('two gateways on one Redis', () => {
    let pair: Pair<RunningProcess, true>;
    let a: TestGateway;
    let b: TestGateway;

    beforeAll(async () => {
      pair = await startPair({ downstream, redis: true, instances: 2 });
      [a, b] = await Promise.all([TestGateway.of(pair.gateways[0]!), TestGateway.of(pair.gateways[1]!)]);
    });
    afterAll(() => pair?.stop());

    it('answers on B from what a call on A cached, exact and semantic', async () => {
      const agent = await a.agent({ scopes: ['catalog:write'] });
      const onA = await a.call(agent, 'get_product', { sku: 'SW-IDE' });
      expect(onA.record.outcome).toBe('ok');
      const onB = await b.call(agent, 'get_product', { sku: 'SW-IDE' });
      expect(onB.record).toMatchObject({
        outcome: 'cache-hit',
        cacheTier: 'exact',
        tokensCharged: onA.record.tokensCharged,
      });
      expect(onB.text).toBe(onA.text);

      const query = await a.call(agent, 'search_products', { q: 'waterproof hiking boots for women' });
      await sleep(EMBEDDING_SETTLE_MS);
      const paraphrase = await b.call(agent, 'search_products', { q: "women's waterproof hiking boots" });
      expect(paraphrase.record).toMatchObject({ outcome: 'cache-hit', cacheTier: 'semantic' });
      expect(paraphrase.text).toBe(query.text);
    });

    it('drops what was cached before a write: on the writing instance at once, on the others within a second', async () => {
      const agent = await a.agent({ scopes: ['catalog:write'] });
      const before = await a.call(agent, 'stockLevel', { sku: 'SW-VPN' });
      expect((await a.call(agent, 'stockLevel', { sku: 'SW-VPN' })).record.outcome).toBe('cache-hit');
      expect((await b.call(agent, 'restockProduct', { sku: 'SW-VPN', quantity: 3 })).record.outcome).toBe('ok');
      // B bumped the shared generation and knows it at once.
      const onB = await b.call(agent, 'stockLevel', { sku: 'SW-VPN' });
      expect(onB.record).toMatchObject({ outcome: 'ok', cacheTier: null, downstreamStatus: 200 });
      expect(served(onB).stock).toBe(served(before).stock + 3);
      // A reads the generation at most once a second (not on every call): past that second it has seen
      // the write, and serves the answer fetched after it (B's, now cached under the new generation).
      await sleep(GENERATION_REFRESH_MS + 100);
      const after = await a.call(agent, 'stockLevel', { sku: 'SW-VPN' });
      expect(served(after).stock).toBe(served(before).stock + 3);
    });
  });
});
