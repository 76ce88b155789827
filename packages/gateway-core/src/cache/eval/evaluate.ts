import { cosineSimilarity, type EmbeddingModel } from '../../embedding/port.js';
import { normalizeText } from '../arguments.js';
import { createMemoryStore } from '../../store/memory/index.js';
import type { ToolCacheSettings } from '../../tools/definition.js';
import { DEFAULT_SIMILARITY_THRESHOLD, SemanticCache, type CacheableTool } from '../semantic-cache.js';

/** One hand-labelled pair: `b` asked after `a`; `hit` when `a`'s answer may serve `b`. */
export interface LabelledPair {
  a: string;
  b: string;
  label: 'hit' | 'miss';
  category: string;
}

export interface EvaluationSet {
  tool: string;
  argument: string;
  cache: ToolCacheSettings;
  pairs: LabelledPair[];
}

export interface PairOutcome extends LabelledPair {
  served: boolean;
  /** Cosine similarity of the two texts as the model sees them. */
  similarity: number;
}

export interface Evaluation {
  outcomes: PairOutcome[];
  /** Must-not-hit pairs served from the cache: wrong answers. Must be empty. */
  wrongAnswers: PairOutcome[];
  /** Of the answers served, the share that were right (1 when none were served). */
  precision: number;
  /** Of the paraphrases, the share served. */
  recall: number;
  /** Per category: pairs served of pairs. */
  byCategory: Record<string, { served: number; of: number; label: LabelledPair['label'] }>;
  /** What similarity alone would have served at the same threshold, without the guard: the guard's worth. */
  similarityOnly: { wrongAnswers: number; recall: number };
}

/**
 * Runs every pair through a real SemanticCache as the gateway configures it
 * (memory store, default threshold unless given): store `a`'s answer, look
 * up `b`. Each pair is its own agent, so pairs never answer each other.
 */
export async function evaluateSemanticCache(
  set: EvaluationSet,
  model: EmbeddingModel,
  threshold?: number,
): Promise<Evaluation> {
  const tool = toolOf(set);
  const cache = new SemanticCache({
    cache: createMemoryStore().cache,
    model,
    ...(threshold === undefined ? {} : { threshold }),
  });
  const outcomes: PairOutcome[] = [];
  for (const [index, pair] of set.pairs.entries()) {
    const agent = `eval-${index}`;
    await cache.store(tool, { [set.argument]: pair.a }, agent, JSON.stringify({ answerFor: pair.a }));
    const hit = await cache.lookup(tool, { [set.argument]: pair.b }, agent);
    const [a, b] = await model.embed([normalizeText(pair.a), normalizeText(pair.b)]);
    outcomes.push({ ...pair, served: hit !== null, similarity: cosineSimilarity(a!, b!) });
  }
  return summarise(outcomes, threshold ?? DEFAULT_SIMILARITY_THRESHOLD);
}

function summarise(outcomes: PairOutcome[], threshold: number): Evaluation {
  const served = outcomes.filter((outcome) => outcome.served);
  const rightServed = served.filter((outcome) => outcome.label === 'hit').length;
  const paraphrases = outcomes.filter((outcome) => outcome.label === 'hit').length;
  const byCategory: Evaluation['byCategory'] = {};
  for (const outcome of outcomes) {
    const entry = (byCategory[outcome.category] ??= { served: 0, of: 0, label: outcome.label });
    entry.of += 1;
    if (outcome.served) entry.served += 1;
  }
  const similar = outcomes.filter((outcome) => outcome.similarity >= threshold);
  const similarityOnly = {
    wrongAnswers: similar.filter((outcome) => outcome.label === 'miss').length,
    recall: paraphrases === 0 ? 1 : similar.filter((outcome) => outcome.label === 'hit').length / paraphrases,
  };
  return {
    similarityOnly,
    outcomes,
    wrongAnswers: served.filter((outcome) => outcome.label === 'miss'),
    precision: served.length === 0 ? 1 : rightServed / served.length,
    recall: paraphrases === 0 ? 1 : rightServed / paraphrases,
    byCategory,
  };
}

export interface WorkloadReplay {
  calls: number;
  exactHits: number;
  semanticHits: number;
  misses: number;
  /** (exact + semantic hits) / calls. */
  hitRatio: number;
  /** Semantic hits answering a query with the answer of one the set labels must-not-hit with it. */
  wrongHits: number;
  /** Semantic hits between queries the set does not pair: neither known right nor known wrong. */
  unlabelledHits: number;
}

/**
 * Replays a search workload through one agent's cache: `calls` queries drawn
 * from the set's texts with a skewed popularity (a few asked often, most
 * rarely, as a search box sees), by a seeded generator so every run asks the
 * same. Each miss stores an answer naming its query, so a hit shows which
 * earlier query answered it.
 */
export async function replayWorkload(
  set: EvaluationSet,
  model: EmbeddingModel,
  calls = 1000,
  seed = 16,
): Promise<WorkloadReplay> {
  const tool = toolOf(set);
  const cache = new SemanticCache({ cache: createMemoryStore().cache, model });
  const texts = [...new Set(set.pairs.flatMap((pair) => [pair.a, pair.b]))];
  const mustMiss = new Set(
    set.pairs
      .filter((pair) => pair.label === 'miss')
      .flatMap((pair) => [`${pair.a}\u0000${pair.b}`, `${pair.b}\u0000${pair.a}`]),
  );
  const paired = new Set(set.pairs.flatMap((pair) => [`${pair.a}\u0000${pair.b}`, `${pair.b}\u0000${pair.a}`]));
  const random = seededRandom(seed);
  const replay: WorkloadReplay = {
    calls,
    exactHits: 0,
    semanticHits: 0,
    misses: 0,
    hitRatio: 0,
    wrongHits: 0,
    unlabelledHits: 0,
  };
  for (let call = 0; call < calls; call++) {
    // Skewed popularity: index = n * u^3 puts most calls on the first texts.
    const query = texts[Math.floor(texts.length * random() ** 3)]!;
    const args = { [set.argument]: query };
    const hit = await cache.lookup(tool, args, 'workload');
    if (hit === null) {
      replay.misses += 1;
      await cache.store(tool, args, 'workload', JSON.stringify({ answerFor: query }));
    } else if (hit.tier === 'exact') {
      replay.exactHits += 1;
    } else {
      replay.semanticHits += 1;
      const answered = (JSON.parse(hit.text) as { answerFor: string }).answerFor;
      if (mustMiss.has(`${answered}\u0000${query}`)) replay.wrongHits += 1;
      else if (!paired.has(`${answered}\u0000${query}`)) replay.unlabelledHits += 1;
    }
  }
  replay.hitRatio = (replay.exactHits + replay.semanticHits) / calls;
  return replay;
}

/** mulberry32: a small seeded generator, so a replay is the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function toolOf(set: EvaluationSet): CacheableTool {
  return {
    name: set.tool,
    httpMethod: 'GET',
    allowWrite: false,
    inputSchema: { type: 'object', properties: { [set.argument]: { type: 'string' } }, required: [] },
    cache: set.cache,
  };
}

/** A few lines for a test log or a bench result. */
export function describeEvaluation(evaluation: Evaluation): string {
  const lines = [
    `semantic tier: precision ${evaluation.precision.toFixed(3)}, recall ${evaluation.recall.toFixed(3)}, wrong ` +
      `answers ${evaluation.wrongAnswers.length}` +
      ` (similarity alone: ${evaluation.similarityOnly.wrongAnswers} wrong answers, recall ` +
      `${evaluation.similarityOnly.recall.toFixed(3)})`,
    ...Object.entries(evaluation.byCategory).map(
      ([category, { served, of, label }]) =>
        `  ${label === 'hit' ? 'should hit ' : 'must miss  '} ${category.padEnd(14)} served ${served}/${of}`,
    ),
    ...evaluation.wrongAnswers.map(
      (outcome) =>
        `  WRONG: "${outcome.a}" answered "${outcome.b}" (${outcome.category}, similarity ` +
        `${outcome.similarity.toFixed(3)})`,
    ),
  ];
  return lines.join('\n');
}
