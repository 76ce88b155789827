import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'vitest';
import { LocalEmbeddingModel } from '../../../embedding/local-model.js';
import type { EmbeddingModel } from '../../../embedding/port.js';
import { ToolSearchIndex } from '../tool-search-index.js';
import { evaluateSearch, splitForTuning, type LabelledQuestion, type SearchEvaluation } from './evaluate.js';
import githubQuestions from './github-questions.json' with { type: 'json' };
import { githubCatalog } from './github-tools.js';

/**
 * The measurements behind the ranking's settings (docs/guide/search-mode.md):
 * lexical alone, and mixed with the local embedding model at several
 * weights; build time, recall and per-search latency. Minutes of CPU, so
 * not part of CI: `SEARCH_BENCH=1 pnpm exec vitest run <this file>` writes
 * search-bench-results.json beside it.
 */
const WEIGHTS = [0.3, 0.5, 0.7, 0.85];

describe.skipIf(!process.env.SEARCH_BENCH)('search ranking benchmark', () => {
  it('measures lexical and mixed rankings on the GitHub set', { timeout: 900_000 }, async () => {
    const started = performance.now();
    const catalog = githubCatalog();
    const importMs = performance.now() - started;
    const labelled = githubQuestions.map((question) => ({ q: question.q, answers: question.answers.map(catalog.toolNameOf) }));
    const runs: Array<{ ranking: string; buildMs: number } & Omit<SearchEvaluation, 'misses'> & { misses: number; splits: Splits }> = [];
    const lexical = new ToolSearchIndex();
    let at = performance.now();
    lexical.sync(catalog.tools);
    const lexicalBuildMs = performance.now() - at;
    // Twice: the first pass warms the JIT, the second is what a running gateway sees.
    await evaluateSearch(lexical, labelled);
    const lexicalResult = await evaluateSearch(lexical, labelled);
    runs.push({ ranking: 'lexical (BM25+, default)', buildMs: lexicalBuildMs, ...lexicalResult, misses: lexicalResult.misses.length, splits: await splitRecall(lexical, labelled) });
    at = performance.now();
    const reloaded = catalog.tools.map((tool, position) => (position % 100 === 0 ? { ...tool, definition: { ...tool.definition, description: `${tool.definition.description} (changed)` } } : tool));
    lexical.sync(reloaded);
    const incrementalMs = performance.now() - at;

    const local = new LocalEmbeddingModel();
    await local.load();
    // Vectors of the tools are computed once and shared by the weights tried.
    const memo = new Map<string, number[]>();
    const model: EmbeddingModel = {
      name: local.name,
      embed: async (texts) => {
        const missing = texts.filter((text) => !memo.has(text));
        if (missing.length > 0) (await local.embed(missing)).forEach((vector, index) => memo.set(missing[index]!, vector));
        return texts.map((text) => memo.get(text)!);
      },
    };
    for (const semanticWeight of WEIGHTS) {
      const index = new ToolSearchIndex({ embedding: model, semanticWeight });
      at = performance.now();
      index.sync(catalog.tools);
      await index.vectorsReady();
      const buildMs = performance.now() - at;
      const mixed = async (searched: ToolSearchIndex, query: string) => {
        memo.delete(query);
        return (await searched.search(query, { limit: 5 })).map((found) => found.tool);
      };
      const result = await evaluateSearch(index, labelled, mixed);
      runs.push({ ranking: `lexical + ${local.name} at ${semanticWeight}`, buildMs, ...result, misses: result.misses.length, splits: await splitRecall(index, labelled, mixed) });
    }
    await local.close();
    const report = { measuredAt: new Date().toISOString(), tools: catalog.tools.length, questions: labelled.length, importMs, incrementalReloadOf13Ms: incrementalMs, runs };
    console.info(JSON.stringify(report, null, 1));
    writeFileSync(new URL('./search-bench-results.json', import.meta.url), `${JSON.stringify(report, null, 1)}\n`);
  });
});

type Splits = Record<'tune' | 'heldOut', { recallAt1: number; recallAt5: number }>;

/** Recall on the tune split and on the questions held out of tuning (see `splitForTuning`). */
async function splitRecall(index: ToolSearchIndex, labelled: LabelledQuestion[], search?: Parameters<typeof evaluateSearch>[2]): Promise<Splits> {
  const { tune, heldOut } = splitForTuning(labelled);
  const recall = async (questions: LabelledQuestion[]) => {
    const { recallAt1, recallAt5 } = await evaluateSearch(index, questions, search);
    return { recallAt1, recallAt5 };
  };
  return { tune: await recall(tune), heldOut: await recall(heldOut) };
}
