import { performance } from 'node:perf_hooks';
import type { RegisteredTool } from '../../../tools/registry.js';
import type { ToolSearchIndex } from '../tool-search-index.js';

/** A question as a model would phrase a need, and the tools (any one of them) that answer it. */
export interface LabelledQuestion {
  q: string;
  answers: string[];
}

export interface SearchEvaluation {
  questions: number;
  recallAt1: number;
  recallAt5: number;
  /** Milliseconds per search, over every question. */
  p50Ms: number;
  p99Ms: number;
  /** The questions whose answer was not in the first five, for reading. */
  misses: Array<{ q: string; answers: string[]; found: string[] }>;
}

/**
 * The labelled questions split for tuning: every third one (positions 2, 5,
 * 8, …) is held out, the rest tune the ranking's settings. A change is kept
 * for what it does on `tune`; `heldOut` shows whether it carries over to
 * questions it was not chosen on.
 */
export function splitForTuning<Question>(questions: readonly Question[]): { tune: Question[]; heldOut: Question[] } {
  return {
    tune: questions.filter((_, position) => position % 3 !== 2),
    heldOut: questions.filter((_, position) => position % 3 === 2),
  };
}

/** Runs each question once through `search` and scores the ranking against the labels. */
export async function evaluateSearch(
  index: ToolSearchIndex,
  questions: readonly LabelledQuestion[],
  search: (index: ToolSearchIndex, query: string) => Promise<RegisteredTool[]> | RegisteredTool[] = (i, q) =>
    i.searchLexical(q, { limit: 5 }).map((found) => found.tool),
): Promise<SearchEvaluation> {
  let at1 = 0;
  let at5 = 0;
  const times: number[] = [];
  const misses: SearchEvaluation['misses'] = [];
  for (const question of questions) {
    const started = performance.now();
    const found = (await search(index, question.q)).map((tool) => tool.definition.name);
    times.push(performance.now() - started);
    if (question.answers.includes(found[0] ?? '')) at1++;
    if (found.slice(0, 5).some((name) => question.answers.includes(name))) at5++;
    else misses.push({ q: question.q, answers: question.answers, found: found.slice(0, 5) });
  }
  times.sort((a, b) => a - b);
  return {
    questions: questions.length,
    recallAt1: at1 / questions.length,
    recallAt5: at5 / questions.length,
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    misses,
  };
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
}
