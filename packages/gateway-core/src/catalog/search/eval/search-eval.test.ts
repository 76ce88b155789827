import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../../tokens/count.js';
import { buildToolRegistry } from '../../../tools/registry.js';
import { ToolSearchMode } from '../search-mode.js';
import { ToolSearchIndex } from '../tool-search-index.js';
import { evaluateSearch, splitForTuning, type LabelledQuestion } from './evaluate.js';
import githubQuestions from './github-questions.json' with { type: 'json' };
import freshQuestions from './github-questions-fresh.json' with { type: 'json' };
import { githubCatalog } from './github-tools.js';
import sampleQuestions from './sample-questions.json' with { type: 'json' };
import sampleSchema from './sample-tools.json' with { type: 'json' };

/**
 * The labelled evaluation of search_tools' ranking (issue 28), as CI runs
 * it: fails when recall falls below the issue's targets, recall@5 0.95 and
 * recall@1 0.75, on the whole GitHub set: the 207 questions of the first
 * round and the 60 fresh ones written before the second round's tuning
 * (github-questions-fresh.json). The committed ranking reaches 0.959 and
 * 0.809 there (docs/guide/search-mode.md); the splits are reported beside it.
 * Timing is measured (search-bench.test.ts) but not asserted: this machine
 * is shared, and a wall-clock bound here would fail under load.
 */
const GITHUB_RECALL_AT_5 = 0.95;
const GITHUB_RECALL_AT_1 = 0.75;
const SAMPLE_RECALL_AT_5 = 1;
const SAMPLE_RECALL_AT_1 = 0.8;
/** What an agent in search mode pays for its tools/list, in o200k tokens. */
const SEARCH_MODE_LIST_TOKENS = 1_500;

// Reading GitHub's document and indexing 1,223 operations takes seconds on a loaded machine.
describe('search_tools ranking on the labelled sets', { timeout: 60_000 }, () => {
  const catalog = githubCatalog();
  const tools = catalog.tools;
  const labelled = (questions: typeof githubQuestions): LabelledQuestion[] =>
    questions.map((question) => ({ q: question.q, answers: question.answers.map(catalog.toolNameOf) }));
  const firstRound = labelled(githubQuestions);
  const fresh = labelled(freshQuestions);
  const github = [...firstRound, ...fresh];
  const index = new ToolSearchIndex();
  const started = performance.now();
  index.sync(tools);
  const buildMs = performance.now() - started;

  it(`has at least 150 GitHub questions over ${tools.length} operations`, () => {
    expect(github.length).toBeGreaterThanOrEqual(150);
    // 1,223 operations; the importer leaves out the few it cannot call properly (see catalog/openapi).
    expect(tools.length).toBeGreaterThan(1200);
    console.info(`index of ${tools.length} GitHub operations built in ${Math.round(buildMs)} ms`);
  });

  it('every labelled operation is among the imported tools', () => {
    expect(github.flatMap((question) => question.answers).filter((name) => name.startsWith('(not imported'))).toEqual(
      [],
    );
  });

  it(`GitHub's API: recall@5 >= ${GITHUB_RECALL_AT_5}, recall@1 >= ${GITHUB_RECALL_AT_1}`, async () => {
    const result = await evaluateSearch(index, github);
    console.info(JSON.stringify({ ...result, misses: result.misses.length }));
    // Reported, not asserted: how the settings chosen on the tune split do on the questions held out of
    // tuning, and on the fresh ones no setting was chosen on.
    const { tune, heldOut } = splitForTuning(firstRound);
    for (const [split, questions] of [
      ['tune', tune],
      ['held out', heldOut],
      ['fresh', fresh],
    ] as const) {
      const { recallAt1, recallAt5 } = await evaluateSearch(index, questions);
      console.info(
        `${split} (${questions.length} questions): recall@5 ${recallAt5.toFixed(3)}, recall@1 ${recallAt1.toFixed(3)}`,
      );
    }
    expect(result.recallAt5).toBeGreaterThanOrEqual(GITHUB_RECALL_AT_5);
    expect(result.recallAt1).toBeGreaterThanOrEqual(GITHUB_RECALL_AT_1);
  });

  it(`the sample downstream: recall@5 >= ${SAMPLE_RECALL_AT_5}, recall@1 >= ${SAMPLE_RECALL_AT_1}`, async () => {
    const sample = new ToolSearchIndex();
    sample.sync(buildToolRegistry(sampleSchema).registry.list());
    const result = await evaluateSearch(sample, sampleQuestions);
    console.info(JSON.stringify(result));
    expect(result.recallAt5).toBeGreaterThanOrEqual(SAMPLE_RECALL_AT_5);
    expect(result.recallAt1).toBeGreaterThanOrEqual(SAMPLE_RECALL_AT_1);
  });

  it(`tools/list in search mode costs at most ${SEARCH_MODE_LIST_TOKENS} tokens (o200k)`, () => {
    const mode = new ToolSearchMode({ mode: 'on', registry: () => buildToolRegistry([]).registry });
    const listed = JSON.stringify(mode.listResult(tools, { pinnedTools: [] }, '2025-11-25'));
    const tokens = countTokens(listed);
    console.info(`search-mode tools/list: ${tokens} tokens`);
    expect(tokens).toBeLessThanOrEqual(SEARCH_MODE_LIST_TOKENS);
  });

  it('re-indexes only what a reload changed', () => {
    const reloaded = tools.map((tool, position) =>
      position === 0
        ? { ...tool, definition: { ...tool.definition, description: 'Changed. Now says something else.' } }
        : tool,
    );
    const copy = new ToolSearchIndex();
    copy.sync(tools);
    expect(copy.sync(reloaded)).toEqual({ added: 1, removed: 1 });
    expect(copy.sync(reloaded.slice(1))).toEqual({ added: 0, removed: 1 });
    expect(copy.size).toBe(tools.length - 1);
  });
});
