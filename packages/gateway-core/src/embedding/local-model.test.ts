import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEmbeddingModel } from './check.js';
import { LocalEmbeddingModel, loadLocalEmbeddingModel, MAX_LOCAL_TEXT_LENGTH } from './local-model.js';
import { cosineSimilarity, EmbeddingModelError, type EmbeddingModel } from './port.js';

describe('local Universal Sentence Encoder in a worker thread', () => {
  let model: EmbeddingModel;
  beforeAll(async () => {
    const started = performance.now();
    model = await loadLocalEmbeddingModel();
    console.log(`local embedding model (${model.name}) loaded in ${Math.round(performance.now() - started)} ms`);
  }, 60_000);
  afterAll(() => model.close?.());

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

  it('embeds with the published weights (values computed once with the model as its package loads it)', async () => {
    const [vector] = await model.embed(['hello world']);
    expect(vector!.slice(0, 3).map((value) => Number(value.toFixed(6)))).toEqual([-0.051497, -0.054925, -0.007691]);
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

  it('answers concurrent calls each with the vectors of its own texts', async () => {
    const texts = Array.from(
      { length: 12 },
      (_, i) => `orders of customer ${i} ${['shipped', 'lost', 'returned'][i % 3]}`,
    );
    const expected = await model.embed(texts);
    const concurrent = await Promise.all(
      texts.map((text, i) => model.embed(i % 2 ? [text, 'padding sentence'] : [text])),
    );
    concurrent.forEach((vectors, i) => {
      expect(vectors).toHaveLength(i % 2 ? 2 : 1);
      expect(cosineSimilarity(vectors[0]!, expected[i]!)).toBeCloseTo(1, 5);
      if (i > 0) expect(cosineSimilarity(vectors[0]!, expected[i - 1]!)).toBeLessThan(0.999);
    });
  });

  it('keeps the order of a call larger than one batch to the worker', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `sentence number ${i} about hiking boots`);
    const vectors = await model.embed(texts);
    expect(vectors).toHaveLength(70);
    const [last] = await model.embed([texts[69]!]);
    expect(cosineSimilarity(vectors[69]!, last!)).toBeCloseTo(1, 5);
    expect(cosineSimilarity(vectors[68]!, last!)).toBeLessThan(0.999);
  });

  it('embeds nothing for no texts', async () => {
    expect(await model.embed([])).toEqual([]);
  });

  it('refuses a text longer than the tokenizer handles in reasonable time, and still works', async () => {
    const attempt = model.embed(['short', 'x'.repeat(MAX_LOCAL_TEXT_LENGTH + 1)]);
    await expect(attempt).rejects.toBeInstanceOf(EmbeddingModelError);
    await expect(attempt).rejects.toThrow(/10001 characters/);
    expect(await model.embed(['x'.repeat(MAX_LOCAL_TEXT_LENGTH)])).toHaveLength(1);
  });

  it('passes the readiness check', async () => {
    expect(await checkEmbeddingModel(model)).toEqual({ status: 'Healthy' });
  });
});

describe('the worker running out of memory', () => {
  // Measured: 24 MB of old generation loads the model and embeds short texts,
  // but a 38,000-character text exhausts it within seconds.
  const tight = new LocalEmbeddingModel({
    resourceLimits: { maxOldGenerationSizeMb: 24, maxYoungGenerationSizeMb: 4 },
    maxTextLength: Infinity,
  });
  afterAll(() => tight.close());

  it('rejects the calls it held, and the next call starts a new worker', async () => {
    await tight.load();
    const [before] = await tight.embed(['where is my parcel']);
    const huge = tight.embed(['where is my parcel '.repeat(2_000)]);
    const queued = tight.embed(['a call waiting behind it']);
    await expect(huge).rejects.toBeInstanceOf(EmbeddingModelError);
    await expect(huge).rejects.toThrow(/embedding worker stopped: .*memory limit/);
    await expect(queued).rejects.toThrow(/embedding worker stopped/);

    const [after] = await tight.embed(['where is my parcel']);
    expect(cosineSimilarity(after!, before!)).toBeCloseTo(1, 5);
  }, 120_000);
});

describe('closing', () => {
  it('rejects calls in flight and later ones', async () => {
    const model = new LocalEmbeddingModel();
    await model.load();
    const inFlight = model.embed(['an answer that never comes']);
    await model.close();
    await expect(inFlight).rejects.toThrow(/the local embedding model was closed/);
    await expect(model.embed(['too late'])).rejects.toThrow(/closed/);
    await model.close(); // twice is harmless
  }, 60_000);

  it('rejects loading when the model cannot start', async () => {
    // Below what the model needs to load (measured: 16 MB still loads).
    const starved = new LocalEmbeddingModel({
      resourceLimits: { maxOldGenerationSizeMb: 4, maxYoungGenerationSizeMb: 1 },
    });
    await expect(starved.load()).rejects.toThrow(/embedding worker stopped/);
  }, 60_000);
});

/**
 * A real process that loads the model, embeds once and reaches its end
 * without closing the model: an idle worker must not hold it open.
 */
describe('process exit', () => {
  it('is not held open by a loaded, idle model', async () => {
    const localModel = new URL('./local-model.ts', import.meta.url).href;
    // Node strips the types of src/*.ts but does not map their `./x.js` imports to `./x.ts`.
    const script = `
      import { registerHooks } from 'node:module';
      registerHooks({
        resolve(specifier, context, next) {
          try { return next(specifier, context); }
          catch (error) { if (!specifier.endsWith('.js')) throw error; return next(specifier.replace(/\\.js$/, '.ts'), context); }
        },
      });
      const { loadLocalEmbeddingModel } = await import(${JSON.stringify(localModel)});
      const model = await loadLocalEmbeddingModel();
      const [vector] = await model.embed(['hello']);
      console.log('embedded', vector.length);
    `;
    // `--input-type` also checks that the worker does not inherit the main script's flags.
    const child = spawn(process.execPath, ['--input-type=module', '--eval', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise((resolve) => child.on('exit', (exitCode, signal) => resolve(exitCode ?? signal)));
    clearTimeout(killer);
    expect(output).toContain('embedded 512');
    expect(code).toBe(0);
  }, 40_000);
});
