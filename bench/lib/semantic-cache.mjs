// The semantic cache tier's quality, measured in-process with the gateway's
// local model: precision and recall on the committed evaluation set, and the
// hit ratio of a replayed search workload (issue 16).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadLocalEmbeddingModel } from '@tollgate/gateway-core';
import { evaluateSemanticCache, replayWorkload } from '@tollgate/gateway-core/testing';

const SET = fileURLToPath(new URL('../../packages/gateway-core/src/cache/eval/semantic-pairs.json', import.meta.url));

/** `{ evaluation, workload }` for results.semanticCache; a few seconds with the model loaded. */
export async function semanticCacheQuality({ workloadCalls = 1000 } = {}) {
  const set = JSON.parse(readFileSync(SET, 'utf8'));
  const model = await loadLocalEmbeddingModel();
  try {
    const evaluation = await evaluateSemanticCache(set, model);
    const workload = await replayWorkload(set, model, workloadCalls);
    const round3 = (value) => Math.round(value * 1000) / 1000;
    return {
      evaluation: {
        pairs: set.pairs.length,
        shouldHit: set.pairs.filter((pair) => pair.label === 'hit').length,
        mustNotHit: set.pairs.filter((pair) => pair.label === 'miss').length,
        precision: round3(evaluation.precision),
        recall: round3(evaluation.recall),
        wrongAnswers: evaluation.wrongAnswers.map((outcome) => `${outcome.a} | ${outcome.b}`),
        similarityOnly: {
          wrongAnswers: evaluation.similarityOnly.wrongAnswers,
          recall: round3(evaluation.similarityOnly.recall),
        },
        byCategory: evaluation.byCategory,
      },
      workload: { ...workload, hitRatio: round3(workload.hitRatio) },
    };
  } finally {
    await model.close?.();
  }
}

// `node bench/lib/semantic-cache.mjs`: just this part, printed as JSON.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(await semanticCacheQuality(), null, 2)}\n`);
  process.exit(0);
}
