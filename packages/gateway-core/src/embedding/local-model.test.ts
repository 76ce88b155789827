import { beforeAll, describe, expect, it } from 'vitest';
import { checkEmbeddingModel } from './check.js';
import { loadLocalEmbeddingModel } from './local-model.js';
import { cosineSimilarity, type EmbeddingModel } from './port.js';

describe('local Universal Sentence Encoder', () => {
  let model: EmbeddingModel;
  beforeAll(async () => {
    const started = performance.now();
    model = await loadLocalEmbeddingModel();
    console.log(`local embedding model (${model.name}) loaded in ${Math.round(performance.now() - started)} ms`);
  }, 60_000);

  it('embeds each text into 512 dimensions, in order', async () => {
    const vectors = await model.embed(['first text', 'second text', 'third']);
    expect(vectors).toHaveLength(3);
    for (const vector of vectors) {
      expect(vector).toHaveLength(512);
      expect(vector.every(Number.isFinite)).toBe(true);
    }
    const [again] = await model.embed(['second text']);
    expect(cosineSimilarity(again!, vectors[1]!)).toBeCloseTo(1, 5);
    expect(cosineSimilarity(again!, vectors[0]!)).toBeLessThan(0.999);
  });

  it('scores similar sentences higher than unrelated ones', async () => {
    const [question, paraphrase, unrelated] = await model.embed([
      'How do I reset my password?',
      'I forgot my password, how can I change it?',
      'The weather in Paris is sunny today.',
    ]);
    const similar = cosineSimilarity(question!, paraphrase!);
    const different = cosineSimilarity(question!, unrelated!);
    expect(similar).toBeGreaterThan(0.6);
    expect(similar - different).toBeGreaterThan(0.3);
  });

  it('embeds nothing for no texts', async () => {
    expect(await model.embed([])).toEqual([]);
  });

  it('passes the readiness check', async () => {
    expect(await checkEmbeddingModel(model)).toEqual({ status: 'Healthy' });
  });
});
