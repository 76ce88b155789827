/**
 * The worker thread behind `WorkerLargeAnswers` (a piscina pool): builds the
 * privacy filter once from the configuration the gateway validated, then
 * processes one answer per task exactly as the in-thread path would.
 *
 * From dist it is its own tsup entry (dist/answer-worker.js, its imports
 * bundled in); from src (vitest) Node strips its types, with the hooks in
 * typescript-hooks.mjs resolving the `.js` imports to the `.ts` files.
 */
import { workerData } from 'node:worker_threads';
import { DownstreamCallError, type DownstreamFailure } from '../errors.js';
import { createPrivacyFilter, type PrivacyFilter } from '../privacy/filter.js';
import type { PrivacyConfig } from '../privacy/config.js';
import { loadTokenizer } from '../tokens/count.js';
import type { AnswerTask, ProcessedAnswer } from './large-answers.js';
import { processAnswer } from './process-answer.js';

export interface AnswerWorkerData {
  /** null: answers are not filtered (no privacy filter configured). */
  privacy: PrivacyConfig | null;
}

/** An error of the catalogue travels as data: a thrown error would reach the pool without its class. */
export type AnswerWorkerReply =
  | { ok: true; answer: ProcessedAnswer }
  | { ok: false; message: string; failure: DownstreamFailure };

const { privacy: config } = workerData as AnswerWorkerData;
const privacy: PrivacyFilter | undefined = config === null ? undefined : createPrivacyFilter(config);
// Loaded as the worker starts, before any answer: loaded later, beside a huge answer, its tables
// could run the worker's capped heap out, which V8 cannot always recover from (the whole process
// aborts instead of the worker failing one answer).
loadTokenizer();

export default function answerTask(task: AnswerTask): AnswerWorkerReply {
  try {
    return { ok: true, answer: processAnswer(task, privacy) };
  } catch (error) {
    if (error instanceof DownstreamCallError) return { ok: false, message: error.message, failure: error.data };
    throw error;
  }
}
