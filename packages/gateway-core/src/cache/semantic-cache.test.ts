import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocalEmbeddingModel } from '../embedding/local-model.js';
import { cosineSimilarity, type EmbeddingModel } from '../embedding/port.js';
import { StoreUnavailableError } from '../errors.js';
import { createMemoryStore } from '../store/memory/index.js';
import { MemoryGenerationCounter } from '../store/memory/generation-counter.js';
import type { ResponseCache } from '../store/ports.js';
import { createRedisStore } from '../store/redis/index.js';
import { isRedisServerAvailable, startRedisServer, type RedisServer } from '../testing/redis-server.js';
import { sha256Hex } from '../crypto/sha256.js';
import { canonicalJson } from '../util/canonical-json.js';
import { normalizeText } from './arguments.js';
import { disagreement } from './semantic-guard.js';
import {
  DEFAULT_SIMILARITY_THRESHOLD,
  exactKey,
  SemanticCache,
  type CacheableTool,
  type SemanticCacheOptions,
} from './semantic-cache.js';

const searchProducts: CacheableTool = {
  name: 'searchProducts',
  httpMethod: 'GET',
  allowWrite: false,
  cache: { semantic: true, significantTerms: [] },
  inputSchema: {
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string' },
      category: { type: 'string', enum: ['shoes', 'bags'] },
      limit: { type: 'integer' },
    },
  },
};

const productReviews: CacheableTool = {
  name: 'productReviews',
  httpMethod: 'GET',
  allowWrite: false,
  cache: { semantic: true, significantTerms: [] },
  inputSchema: {
    type: 'object',
    required: ['productId', 'question'],
    properties: { productId: { type: 'integer' }, question: { type: 'string' } },
  },
};

const AGENT = 'agent-a';

const boots = { query: 'waterproof hiking boots for women', category: 'shoes', limit: 5 };
const bootsParaphrase = { query: "Women's waterproof hiking boots", category: 'shoes', limit: 5 };
const bootsForMen = { query: "men's waterproof hiking boots", category: 'shoes', limit: 5 };

let model: EmbeddingModel;
beforeAll(async () => {
  model = await loadLocalEmbeddingModel();
}, 60_000);

function cacheWith(options: Partial<SemanticCacheOptions> = {}): SemanticCache {
  return new SemanticCache({ cache: createMemoryStore().cache, model, ...options });
}

/** Stores and waits for the off-the-hot-path part, as a test must. */
async function stored(
  cache: SemanticCache,
  tool: CacheableTool,
  args: Record<string, unknown>,
  text: string,
  ttlMs?: number,
  agentId = AGENT,
): Promise<void> {
  void cache.store(tool, args, agentId, text, ttlMs);
  await cache.idle();
}

describe('the similarity threshold, measured with the local model', () => {
  const paraphrases: Array<[string, string]> = [
    ['waterproof hiking boots for women', "women's waterproof hiking boots"],
    ['laptops under 1000 dollars', 'laptops below $1000'],
    ['wireless noise cancelling headphones', 'noise-cancelling wireless headphones'],
    ['red running shoes', 'running shoes in red'],
    ['best selling products this month', 'top selling products this month'],
    ['orders that were shipped late last week', 'late shipments from last week'],
  ];
  const different: Array<[string, string]> = [
    ['waterproof hiking boots for women', "men's waterproof hiking boots"],
    ['red running shoes', 'blue running shoes'],
    ['best selling products this month', 'worst selling products this month'],
    ['customers in germany', 'customers in france'],
    ['wireless noise cancelling headphones', 'wired headphones'],
    ['what is the return policy', 'what is the shipping policy'],
    ['orders that were shipped late last week', 'orders that were cancelled last week'],
  ];

  it(`keeps every non-paraphrase below ${DEFAULT_SIMILARITY_THRESHOLD} or refused by the guard, and lets close paraphrases through`, async () => {
    const score = async ([a, b]: [string, string]) => {
      const [va, vb] = await model.embed([normalizeText(a), normalizeText(b)]);
      return cosineSimilarity(va!, vb!);
    };
    const rows: string[] = [];
    const paraphraseScores: number[] = [];
    for (const pair of paraphrases) {
      paraphraseScores.push(await score(pair));
      rows.push(`paraphrase ${paraphraseScores.at(-1)!.toFixed(3)}  ${pair[0]} | ${pair[1]}`);
    }
    const differentScores: number[] = [];
    for (const pair of different) {
      differentScores.push(await score(pair));
      rows.push(`different  ${differentScores.at(-1)!.toFixed(3)}  ${pair[0]} | ${pair[1]}`);
    }
    console.log(`cosine similarity, threshold ${DEFAULT_SIMILARITY_THRESHOLD}:\n${rows.join('\n')}`);

    // Since 0.88 (issue 28) the threshold alone no longer parts "boots for women" from "men's boots"
    // (0.884): the guard's opposites do, as they do for the product set's 126 pairs that similarity alone
    // would serve. What must hold is that the cache serves none of them.
    const servable = different.filter(
      (pair, index) =>
        differentScores[index]! >= DEFAULT_SIMILARITY_THRESHOLD && disagreement(pair[0], pair[1]) === null,
    );
    expect(servable).toEqual([]);
    expect(paraphraseScores[0]).toBeGreaterThanOrEqual(DEFAULT_SIMILARITY_THRESHOLD);
    // The trade-off, stated: looser paraphrases miss rather than risk a wrong answer.
    expect(paraphraseScores.filter((s) => s >= DEFAULT_SIMILARITY_THRESHOLD).length).toBeLessThan(paraphrases.length);
  });
});

describe('SemanticCache', () => {
  it('answers the same arguments from the exact tier, whatever their key order', async () => {
    const store = createMemoryStore();
    const cache = new SemanticCache({ cache: store.cache, model });
    await stored(cache, searchProducts, boots, '{"items":["boot"]}');
    expect(await store.cache.get(exactKey(searchProducts, AGENT, boots))).toBe('{"items":["boot"]}');
    expect(await cache.lookup(searchProducts, { limit: 5, category: 'shoes', query: boots.query }, AGENT)).toEqual({
      tier: 'exact',
      text: '{"items":["boot"]}',
    });
  });

  it('keys the exact tier by the digest of the canonical JSON of the agent and the arguments', () => {
    const secret = Buffer.from('k'.repeat(32));
    const argsList: Array<Record<string, unknown>> = [
      {},
      boots,
      { b: [1, { z: null, a: 'é' }], a: undefined, 10: 'x', 2: true },
      { toJSON: 'not a function', q: 'a"b\n' },
    ];
    for (const agentId of [AGENT, 'agt_"quoted"\\', '']) {
      for (const args of argsList) {
        for (const key of [undefined, secret]) {
          expect(exactKey(searchProducts, agentId, args, key)).toBe(
            `searchProducts:${sha256Hex(canonicalJson({ agent: agentId, args }), key)}`,
          );
        }
      }
    }
  });

  it("never answers one downstream's tool from another's answer under the same name (issue 25 finding 3)", async () => {
    const cache = cacheWith();
    const fromA: CacheableTool = { ...searchProducts, downstream: 'a' };
    const fromB: CacheableTool = { ...searchProducts, downstream: 'b' };
    await stored(cache, fromA, boots, '{"from":"a"}');
    expect(await cache.lookup(fromA, boots, AGENT)).toEqual({ tier: 'exact', text: '{"from":"a"}' });
    expect(await cache.lookup(fromB, boots, AGENT)).toBeNull();
    expect(await cache.lookup(fromB, bootsParaphrase, AGENT)).toBeNull();
    expect(exactKey(fromA, AGENT, boots)).toBe(
      `searchProducts:${sha256Hex(canonicalJson({ agent: AGENT, args: boots, downstream: 'a' }))}`,
    );
  });

  it('keys entries with an HMAC when given a secret, so key names do not reveal the arguments', async () => {
    const store = createMemoryStore();
    const secret = Buffer.from('cache key secret');
    const cache = new SemanticCache({ cache: store.cache, model, keySecret: secret });
    await stored(cache, searchProducts, boots, '{"items":["boot"]}');
    expect(exactKey(searchProducts, AGENT, boots, secret)).not.toBe(exactKey(searchProducts, AGENT, boots));
    expect(await store.cache.get(exactKey(searchProducts, AGENT, boots))).toBeNull();
    expect(await store.cache.get(exactKey(searchProducts, AGENT, boots, secret))).toBe('{"items":["boot"]}');
    expect(await cache.lookup(searchProducts, bootsParaphrase, AGENT)).toMatchObject({ tier: 'semantic' });
  });

  it('answers a paraphrased query from the semantic tier', async () => {
    const cache = cacheWith();
    await stored(cache, searchProducts, boots, '{"items":["boot"]}');
    const hit = await cache.lookup(searchProducts, bootsParaphrase, AGENT);
    expect(hit).toMatchObject({ tier: 'semantic', text: '{"items":["boot"]}' });
    expect(hit!.similarity).toBeGreaterThanOrEqual(DEFAULT_SIMILARITY_THRESHOLD);
  });

  it('serves the exact tier before a model is attached and the semantic tier after', async () => {
    const cache = new SemanticCache({ cache: createMemoryStore().cache, model: null });
    await stored(cache, searchProducts, boots, '{"items":["boot"]}');
    expect(await cache.lookup(searchProducts, boots, AGENT)).toEqual({ tier: 'exact', text: '{"items":["boot"]}' });
    expect(await cache.lookup(searchProducts, bootsParaphrase, AGENT)).toBeNull();
    cache.attachModel(model);
    await stored(cache, searchProducts, boots, '{"items":["boot"]}');
    expect(await cache.lookup(searchProducts, bootsParaphrase, AGENT)).toMatchObject({ tier: 'semantic' });
  });

  it('serves nothing cached before a write once it is invalidated, on every instance', async () => {
    const store = createMemoryStore();
    const shared = { cache: store.cache, model, generation: store.cacheGeneration, generationRefreshMs: 0 };
    const writer = new SemanticCache(shared);
    const reader = new SemanticCache(shared);
    await stored(reader, searchProducts, boots, '{"items":["old"]}');
    expect(await reader.lookup(searchProducts, boots, AGENT)).toMatchObject({ text: '{"items":["old"]}' });
    await writer.invalidate();
    expect(await reader.lookup(searchProducts, boots, AGENT)).toBeNull();
    expect(await reader.lookup(searchProducts, bootsParaphrase, AGENT)).toBeNull();
  });

  it('never files an answer fetched before a write under the generation after it', async () => {
    const store = createMemoryStore();
    const cache = new SemanticCache({
      cache: store.cache,
      model,
      generation: store.cacheGeneration,
      generationRefreshMs: 0,
    });
    const before = await cache.generation();
    await cache.invalidate(); // a write lands while the read is still at the downstream
    void cache.store(searchProducts, boots, AGENT, '{"items":["stale"]}', undefined, before);
    await cache.idle();
    expect(await cache.lookup(searchProducts, boots, AGENT)).toBeNull();
  });

  it('does not answer a query that differs in meaning', async () => {
    const cache = cacheWith();
    await stored(cache, searchProducts, boots, '{"items":["boot"]}');
    expect(await cache.lookup(searchProducts, bootsForMen, AGENT)).toBeNull();
  });

  it('never matches productId 42 with 99, however similar the rest', async () => {
    const cache = cacheWith();
    const question = 'what do buyers say about the battery life';
    await stored(cache, productReviews, { productId: 42, question }, 'reviews of 42');
    expect(await cache.lookup(productReviews, { productId: 99, question }, AGENT)).toBeNull();
    expect(
      await cache.lookup(
        productReviews,
        { productId: 99, question: 'What do buyers say about the battery life?' },
        AGENT,
      ),
    ).toBeNull();
    expect(
      await cache.lookup(
        productReviews,
        { productId: 42, question: 'What do buyers say about the battery life?' },
        AGENT,
      ),
    ).toMatchObject({
      tier: 'semantic',
      text: 'reviews of 42',
    });
  });

  it('never matches texts whose numbers differ (the model scores them 0.96)', async () => {
    const cache = cacheWith();
    await stored(cache, searchProducts, { query: 'laptops under 1000 dollars' }, 'cheap laptops');
    expect(await cache.lookup(searchProducts, { query: 'laptops under 2000 dollars' }, AGENT)).toBeNull();
    expect(await cache.lookup(searchProducts, { query: 'Laptops under 1000 dollars' }, AGENT)).toMatchObject({
      tier: 'semantic',
    });
  });

  it('refuses a close text that disagrees on a negation, a quantity, a name or an opposite, whatever the threshold', async () => {
    const cache = cacheWith({ threshold: 0.3 });
    const pairs: Array<[string, string]> = [
      ['orders that are not cancelled', 'cancelled orders'],
      ['products over ten dollars', 'products under ten dollars'],
      ['basic customers', 'premium customers'],
      ['orders of Alice Smith', 'orders of Bob Jones'],
    ];
    for (const [first, second] of pairs) {
      await stored(cache, searchProducts, { query: first }, first);
      expect(await cache.lookup(searchProducts, { query: second }, AGENT), `${first} | ${second}`).toBeNull();
    }
    // The low threshold is what lets these through; the guard is what holds the others back.
    await stored(cache, searchProducts, { query: 'cheap wireless mice' }, 'mice');
    expect(await cache.lookup(searchProducts, { query: 'wireless mice that are cheap' }, AGENT)).toMatchObject({
      tier: 'semantic',
    });
  });

  it('only compares calls whose other arguments are exactly equal', async () => {
    const cache = cacheWith();
    await stored(cache, searchProducts, boots, 'shoes');
    expect(await cache.lookup(searchProducts, { ...bootsParaphrase, category: 'bags' }, AGENT)).toBeNull();
    expect(await cache.lookup(searchProducts, { ...bootsParaphrase, limit: 6 }, AGENT)).toBeNull();
    const { limit: _, ...withoutLimit } = bootsParaphrase;
    expect(await cache.lookup(searchProducts, withoutLimit, AGENT)).toBeNull();
  });

  it("never serves one agent's answer to another, from either tier", async () => {
    const cache = cacheWith();
    await stored(cache, searchProducts, boots, '{"items":["for A"]}', undefined, 'agent-a');
    expect(await cache.lookup(searchProducts, boots, 'agent-b')).toBeNull();
    expect(await cache.lookup(searchProducts, bootsParaphrase, 'agent-b')).toBeNull();
    // The same calls do hit for the agent that stored them: the misses above are the partition.
    expect(await cache.lookup(searchProducts, boots, 'agent-a')).toMatchObject({ tier: 'exact' });
    expect(await cache.lookup(searchProducts, bootsParaphrase, 'agent-a')).toMatchObject({ tier: 'semantic' });
    await stored(cache, searchProducts, boots, '{"items":["for B"]}', undefined, 'agent-b');
    expect(await cache.lookup(searchProducts, boots, 'agent-b')).toEqual({
      tier: 'exact',
      text: '{"items":["for B"]}',
    });
    expect(await cache.lookup(searchProducts, boots, 'agent-a')).toEqual({
      tier: 'exact',
      text: '{"items":["for A"]}',
    });
  });

  it('keeps tools apart', async () => {
    const cache = cacheWith();
    await stored(cache, searchProducts, { query: 'battery life' }, 'products');
    const other = { ...searchProducts, name: 'searchArticles' };
    expect(await cache.lookup(other, { query: 'battery life' }, AGENT)).toBeNull();
  });

  it('forgets an entry after its TTL, per tool or by default', async () => {
    // The store's clock, not the wall's: an embedding slow on a loaded machine must not eat the short TTL.
    let now = Date.now();
    const cache = new SemanticCache({
      cache: createMemoryStore({ clock: () => now }).cache,
      model,
      ttlMs: 60_000,
      tools: { searchProducts: { ttlMs: 200 } },
    });
    await stored(cache, productReviews, { productId: 1, question: 'is it any good' }, 'long-lived');
    await stored(cache, searchProducts, boots, 'short-lived');
    expect(await cache.lookup(searchProducts, boots, AGENT)).toMatchObject({ tier: 'exact' });
    now += 300;
    expect(await cache.lookup(searchProducts, boots, AGENT)).toBeNull();
    expect(await cache.lookup(searchProducts, bootsParaphrase, AGENT)).toBeNull();
    expect(await cache.lookup(productReviews, { productId: 1, question: 'is it any good' }, AGENT)).toMatchObject({
      text: 'long-lived',
    });
  });

  it('caches only tools that cannot change state', async () => {
    const cache = cacheWith();
    const post = { ...searchProducts, httpMethod: 'POST' as const, allowWrite: true };
    const getAllowingWrites = { ...searchProducts, allowWrite: true };
    for (const tool of [post, getAllowingWrites]) {
      expect(cache.isCacheable(tool)).toBe(false);
      await stored(cache, tool, boots, 'x');
      expect(await cache.lookup(tool, boots, AGENT)).toBeNull();
    }
    expect(cache.isCacheable(searchProducts)).toBe(true);
  });

  it('can be turned off globally, per tool, or limited to the exact tier', async () => {
    const store = createMemoryStore();
    const off = new SemanticCache({ cache: store.cache, model, enabled: false });
    await stored(off, searchProducts, boots, 'x');
    expect(await off.lookup(searchProducts, boots, AGENT)).toBeNull();
    expect(await store.cache.get(exactKey(searchProducts, AGENT, boots))).toBeNull(); // nothing was written

    const optedOut = cacheWith({ tools: { searchProducts: { enabled: false } } });
    await stored(optedOut, searchProducts, boots, 'x');
    expect(await optedOut.lookup(searchProducts, boots, AGENT)).toBeNull();

    for (const exactOnly of [
      cacheWith({ semantic: false }),
      cacheWith({ tools: { searchProducts: { semantic: false } } }),
      cacheWith({ model: null }),
    ]) {
      await stored(exactOnly, searchProducts, boots, 'x');
      expect(await exactOnly.lookup(searchProducts, boots, AGENT)).toMatchObject({ tier: 'exact' });
      expect(await exactOnly.lookup(searchProducts, bootsParaphrase, AGENT)).toBeNull();
    }
  });

  it('runs the embedding off the hot path: store returns before the candidate is in', async () => {
    const cache = cacheWith();
    const storing = cache.store(searchProducts, boots, AGENT, 'x');
    expect(await cache.lookup(searchProducts, bootsParaphrase, AGENT)).toBeNull();
    await storing;
    expect(await cache.lookup(searchProducts, bootsParaphrase, AGENT)).toMatchObject({ tier: 'semantic' });
  });

  describe('an exact-tier read started ahead (peek)', () => {
    /** A memory cache that counts its reads. */
    function counted() {
      const store = createMemoryStore().cache;
      const reads: string[] = [];
      const cache: ResponseCache = {
        ...store,
        get: (key) => (reads.push(key), store.get(key)),
        set: store.set.bind(store),
        candidates: store.candidates.bind(store),
        addCandidate: store.addCandidate.bind(store),
      };
      return { cache, reads };
    }

    it('stands in for the exact read of the very call it was started for: one read, same answer', async () => {
      const { cache: store, reads } = counted();
      const cache = new SemanticCache({ cache: store });
      await stored(cache, searchProducts, boots, '{"hit":1}');
      const peek = cache.peek(searchProducts, boots, AGENT);
      expect(await cache.lookup(searchProducts, boots, AGENT, 0, peek)).toEqual({ tier: 'exact', text: '{"hit":1}' });
      expect(reads).toHaveLength(1);
      const missed = cache.peek(searchProducts, bootsForMen, AGENT);
      expect(await cache.lookup(searchProducts, bootsForMen, AGENT, 0, missed)).toBeNull();
      expect(reads).toHaveLength(2);
    });

    it('is ignored for another call: other arguments, agent, tool definition or generation', async () => {
      const { cache: store, reads } = counted();
      const cache = new SemanticCache({ cache: store });
      await stored(cache, searchProducts, boots, '{"boots":1}');
      await stored(cache, searchProducts, bootsForMen, '{"men":1}');
      const peek = cache.peek(searchProducts, boots, AGENT)!;
      reads.length = 0;
      expect(await cache.lookup(searchProducts, bootsForMen, AGENT, 0, peek)).toMatchObject({ text: '{"men":1}' });
      // Equal arguments in another object: validated arguments are the very object that was peeked.
      expect(await cache.lookup(searchProducts, { ...boots }, AGENT, 0, peek)).toMatchObject({ text: '{"boots":1}' });
      expect(await cache.lookup(searchProducts, boots, 'agent-b', 0, peek)).toBeNull();
      expect(await cache.lookup({ ...searchProducts }, boots, AGENT, 0, peek)).toMatchObject({ text: '{"boots":1}' });
      expect(await cache.lookup(searchProducts, boots, AGENT, 3, peek)).toBeNull();
      expect(reads).toHaveLength(5);
    });

    it('reads the generation beside the entry when the lookup would re-read it, and reads afresh when it moved', async () => {
      const { cache: store, reads } = counted();
      const counter = new MemoryGenerationCounter();
      const events: string[] = [];
      const generation = {
        generation: () => (events.push('generation'), counter.generation()),
        bump: () => counter.bump(),
      };
      const cache = new SemanticCache({
        cache: { ...store, get: (key) => (events.push('entry'), store.get(key)) },
        generation,
        generationRefreshMs: 0,
      });
      await cache.generation();
      await stored(cache, searchProducts, boots, '{"hit":1}');
      events.length = 0;
      reads.length = 0;

      const peek = cache.peek(searchProducts, boots, AGENT);
      // Both reads are sent before anything is awaited: one round trip.
      expect(events).toEqual(['generation', 'entry']);
      const current = await cache.generation(peek);
      expect(await cache.lookup(searchProducts, boots, AGENT, current, peek)).toEqual({
        tier: 'exact',
        text: '{"hit":1}',
      });
      expect(events).toEqual(['generation', 'entry']);

      // Another instance's write moves the generation after the entry was stored: the peeked entry is not served.
      await counter.bump();
      events.length = 0;
      const late = cache.peek(searchProducts, boots, AGENT);
      expect(await cache.lookup(searchProducts, boots, AGENT, await cache.generation(late), late)).toBeNull();
      expect(events).toEqual(['generation', 'entry', 'entry']);
      expect(reads).toHaveLength(3);
    });

    it('does not read the generation ahead while the one last read is fresh', async () => {
      const counter = new MemoryGenerationCounter();
      let generationReads = 0;
      const generation = { generation: () => (generationReads++, counter.generation()), bump: () => counter.bump() };
      const cache = new SemanticCache({ cache: createMemoryStore().cache, generation, generationRefreshMs: 60_000 });
      await cache.generation();
      const peek = cache.peek(searchProducts, boots, AGENT);
      expect(peek?.current).toBeNull();
      await cache.generation(peek);
      expect(generationReads).toBe(1);
    });

    it('is not started for a tool that is not cached', () => {
      const cache = new SemanticCache({ cache: createMemoryStore().cache });
      expect(cache.peek({ ...searchProducts, httpMethod: 'POST' }, boots, AGENT)).toBeNull();
      expect(
        new SemanticCache({ cache: createMemoryStore().cache, enabled: false }).peek(searchProducts, boots, AGENT),
      ).toBeNull();
    });

    it('reports a failed read only when it is used, as a miss; an unused one is dropped quietly', async () => {
      const failing: ResponseCache = {
        get: async () => {
          throw new StoreUnavailableError('The store is unavailable: down');
        },
        set: async () => {},
        candidates: async () => [],
        addCandidate: async () => {},
      };
      const errors: unknown[] = [];
      const cache = new SemanticCache({ cache: failing, onError: (e) => errors.push(e) });
      cache.peek(searchProducts, boots, AGENT);
      await sleep(5);
      expect(errors).toEqual([]);
      expect(await cache.lookup(searchProducts, boots, AGENT, 0, cache.peek(searchProducts, boots, AGENT))).toBeNull();
      expect(errors).toHaveLength(1);
    });
  });

  it('turns a failing store into a miss and reports it', async () => {
    const failing: ResponseCache = {
      get: async () => {
        throw new StoreUnavailableError('The store is unavailable: down');
      },
      set: async () => {
        throw new StoreUnavailableError('The store is unavailable: down');
      },
      candidates: async () => [],
      addCandidate: async () => {},
    };
    const errors: unknown[] = [];
    const cache = new SemanticCache({ cache: failing, model, onError: (e) => errors.push(e) });
    await expect(cache.store(searchProducts, boots, AGENT, 'x')).resolves.toBeUndefined();
    expect(await cache.lookup(searchProducts, boots, AGENT)).toBeNull();
    expect(errors).toHaveLength(2);
    expect(errors.every((e) => e instanceof StoreUnavailableError)).toBe(true);
  });

  it('turns a failing model into a miss, and the exact tier keeps working', async () => {
    const broken: EmbeddingModel = {
      name: 'broken',
      embed: async () => {
        throw new Error('model down');
      },
    };
    const errors: unknown[] = [];
    const cache = new SemanticCache({
      cache: createMemoryStore().cache,
      model: broken,
      onError: (e) => errors.push(e),
    });
    await stored(cache, searchProducts, boots, 'x');
    expect(await cache.lookup(searchProducts, boots, AGENT)).toEqual({ tier: 'exact', text: 'x' });
    expect(await cache.lookup(searchProducts, bootsParaphrase, AGENT)).toBeNull();
    expect(errors.length).toBeGreaterThanOrEqual(1);
  });

  it('gives the semantic tier only to tools that opt in, and lets the operator turn it off per tool', async () => {
    const notOptedIn = { ...searchProducts, cache: undefined };
    const exactOnly = { ...searchProducts, cache: { semantic: false, significantTerms: [] } };
    for (const [tool, cache] of [
      [notOptedIn, cacheWith()],
      [exactOnly, cacheWith()],
      [notOptedIn, cacheWith({ tools: { searchProducts: { semantic: true } } })], // an override cannot opt a tool in
      [searchProducts, cacheWith({ tools: { searchProducts: { semantic: false } } })], // off wins
    ] as const) {
      await stored(cache, tool, boots, 'x');
      expect(await cache.lookup(tool, boots, AGENT)).toMatchObject({ tier: 'exact' });
      expect(await cache.lookup(tool, bootsParaphrase, AGENT)).toBeNull();
    }
  });

  it("holds back a text that differs in one of the tool's significant terms", async () => {
    const tool = { ...searchProducts, cache: { semantic: true, significantTerms: ['hardware', 'software'] } };
    const cache = cacheWith({ threshold: 0.5 });
    await stored(cache, tool, { query: 'hardware for the office' }, 'hardware');
    expect(await cache.lookup(tool, { query: 'software for the office' }, AGENT)).toBeNull();
    expect(await cache.lookup(tool, { query: 'office hardware' }, AGENT)).toMatchObject({ tier: 'semantic' });
    // The same pair without the mark: only the threshold stood between them.
    const unmarked = cacheWith({ threshold: 0.5 });
    await stored(unmarked, searchProducts, { query: 'hardware for the office' }, 'hardware');
    expect(await unmarked.lookup(searchProducts, { query: 'software for the office' }, AGENT)).toMatchObject({
      tier: 'semantic',
    });
  });

  it('refuses bad options', () => {
    const cache = createMemoryStore().cache;
    expect(() => new SemanticCache({ cache, threshold: 0 })).toThrow(/threshold/);
    expect(() => new SemanticCache({ cache, threshold: 1.5 })).toThrow(/threshold/);
    expect(() => new SemanticCache({ cache, ttlMs: -1 })).toThrow(/TTL/);
    expect(() => new SemanticCache({ cache, tools: { t: { ttlMs: 0.5 } } })).toThrow(/TTL of tool t/);
    expect(() => new SemanticCache({ cache, maxCandidates: 0 })).toThrow(/maxCandidates/);
  });
});

describe.runIf(isRedisServerAvailable())('SemanticCache on Redis', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('hits both tiers through the Redis store, and misses quickly when Redis is gone', async () => {
    const store = await createRedisStore(server.url, { keyPrefix: 'semantic-test:' });
    try {
      const errors: unknown[] = [];
      const cache = new SemanticCache({ cache: store.cache, model, onError: (e) => errors.push(e) });
      await stored(cache, searchProducts, boots, '{"items":["boot"]}');
      expect(await cache.lookup(searchProducts, boots, AGENT)).toMatchObject({ tier: 'exact' });
      expect(await cache.lookup(searchProducts, bootsParaphrase, AGENT)).toMatchObject({
        tier: 'semantic',
        text: '{"items":["boot"]}',
      });
      expect(await cache.lookup(searchProducts, bootsForMen, AGENT)).toBeNull();

      await server.stop();
      const started = Date.now();
      expect(await cache.lookup(searchProducts, boots, AGENT)).toBeNull();
      await expect(cache.store(searchProducts, boots, AGENT, 'y')).resolves.toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(errors.some((e) => e instanceof StoreUnavailableError)).toBe(true);
    } finally {
      await store.close();
    }
  });
});
