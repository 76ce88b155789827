import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLocalEmbeddingModel } from '../../embedding/local-model.js';
import type { EmbeddingModel } from '../../embedding/port.js';
import { evaluateSemanticCache, type EvaluationSet } from './evaluate.js';

const read = (file: string) => JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as EvaluationSet;
const sets = {
  products: read('./semantic-pairs.json'),
  support: read('./support-pairs.json'),
  reports: read('./report-pairs.json'),
};

/**
 * Issue 28, item 3: precision and recall of the semantic tier on three
 * kinds of free text (product searches, support questions, report
 * requests), with the gateway's local model and default threshold. Wrong
 * answers fail the build; recall is reported, with a floor at what the
 * committed model and guard reach (measured at threshold 0.88: products
 * 0.651, support 0.676, reports 0.486, all three 0.626 ≥ the 0.50).
 * The support and report sets hold 37 + 37 pairs each: 25 + 25 of the first
 * round and 12 + 12 written in the second before measuring.
 */
const RECALL_FLOOR: Record<keyof typeof sets, number> = { products: 0.65, support: 0.67, reports: 0.48 };
/** The target over the three sets together. */
const OVERALL_RECALL = 0.5;

let model: EmbeddingModel;
beforeAll(async () => {
  model = await loadLocalEmbeddingModel();
}, 60_000);

describe('semantic cache recall by kind of text', () => {
  it('has at least 60 should-hit and 60 must-not-hit pairs beside the product searches', () => {
    const extra = [...sets.support.pairs, ...sets.reports.pairs];
    expect(extra.filter((pair) => pair.label === 'hit').length).toBeGreaterThanOrEqual(60);
    expect(extra.filter((pair) => pair.label === 'miss').length).toBeGreaterThanOrEqual(60);
  });

  it(`serves at least ${OVERALL_RECALL} of all paraphrases, and no wrong answer`, async () => {
    let served = 0;
    let paraphrases = 0;
    for (const set of Object.values(sets)) {
      const evaluation = await evaluateSemanticCache(set, model);
      expect(evaluation.wrongAnswers).toEqual([]);
      const hits = evaluation.outcomes.filter((outcome) => outcome.label === 'hit');
      served += hits.filter((outcome) => outcome.served).length;
      paraphrases += hits.length;
    }
    console.info(`all three sets: recall ${(served / paraphrases).toFixed(3)} (${served}/${paraphrases})`);
    expect(served / paraphrases).toBeGreaterThanOrEqual(OVERALL_RECALL);
  }, 300_000);

  it.each(Object.keys(sets) as Array<keyof typeof sets>)(
    '%s: no wrong answer; precision and recall reported',
    async (name) => {
      const evaluation = await evaluateSemanticCache(sets[name], model);
      const served = evaluation.outcomes.filter((outcome) => outcome.label === 'hit');
      console.info(
        `${name}: precision ${evaluation.precision.toFixed(3)}, recall ${evaluation.recall.toFixed(3)} (${served.filter((o) => o.served).length}/${served.length}), similarity alone: ${JSON.stringify(evaluation.similarityOnly)}`,
      );
      expect(evaluation.wrongAnswers.map((outcome) => `${outcome.a} | ${outcome.b}`)).toEqual([]);
      expect(evaluation.recall).toBeGreaterThanOrEqual(RECALL_FLOOR[name]);
    },
    300_000,
  );
});
