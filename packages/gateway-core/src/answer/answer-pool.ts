import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { DownstreamCallError, OverloadedError } from '../errors.js';
import type { PrivacyConfig } from '../privacy/config.js';
import type { AnswerWorkerData, AnswerWorkerReply } from './answer-worker.js';
import {
  DEFAULT_LARGE_ANSWER_BYTES,
  type AnswerTask,
  type LargeAnswers,
  type ProcessedAnswer,
} from './large-answers.js';

/**
 * Beside this module with its extension: in src (vitest) the .ts file, run
 * with the hooks that let Node load the sources; in dist the bundle's own
 * entry (dist/answer-worker.js).
 */
const EXTENSION = extname(import.meta.url);
const WORKER_FILE = fileURLToPath(new URL(`./answer-worker${EXTENSION}`, import.meta.url));
const SOURCE_EXEC_ARGV = [
  '--experimental-transform-types',
  '--disable-warning=ExperimentalWarning',
  '--import',
  new URL('./typescript-hooks.mjs', import.meta.url).href,
];

/**
 * One thread on a two-core machine (the other core is the event loop's),
 * two from four cores on: large answers are rare, and each one processed
 * at once holds its parsed JSON in memory.
 */
export const DEFAULT_ANSWER_THREADS = Math.min(2, Math.max(1, availableParallelism() - 1));

/**
 * Bytes of large answers waiting or being processed, at most: six answers
 * at the default 10 MiB limit. Past it a large answer is refused as
 * overloaded (retry in a second) rather than held.
 */
export const DEFAULT_MAX_QUEUED_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * A worker's heap. Measured: the worker loads in 40 MB (mostly the
 * tokenizer's ranks), and a 10 MiB list of records peaks at 150 MB. A worker
 * that needs more dies alone (its answer refused as too complex) instead of
 * growing the gateway's memory.
 */
const RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 256 };

/**
 * What decoding an answer may take, in heap bytes per byte of its JSON: small
 * objects (`{"a":1},`: 8 bytes of text) become ~32 bytes of object each, plus
 * the text itself and the cap's copy of it. An answer past heap / this is
 * refused before a worker tries it: `JSON.parse` never stops for the
 * worker's heap limit, and V8 ends the whole process when a parse runs past
 * the limit's short grace (a worker's out-of-memory is contained only when it
 * happens in interruptible work).
 */
const HEAP_BYTES_PER_ANSWER_BYTE = 8;

/**
 * What a worker holds before any answer (the tokenizer's ranks, measured at
 * 40 MB, with room): the answer gets the rest of the heap. Left out, a
 * worker given an answer the bound let through had almost nothing left over
 * and spent minutes collecting garbage at its limit (issue 25 finding 17).
 */
const WORKER_BASELINE_MB = 48;

/** Below the event loop's priority (Linux nice levels; ignored where it is unsupported). */
const NICE_INCREMENT = 5;

export interface WorkerLargeAnswersOptions {
  /**
   * The privacy settings the gateway validated (`createPrivacyFilter`'s
   * input): the worker builds the same filter. null: no filter.
   */
  privacy: PrivacyConfig | null;
  thresholdBytes?: number;
  threads?: number;
  maxQueuedBytes?: number;
  /** An idle worker exits after this long; the next large answer starts one again. */
  idleTimeoutMs?: number;
  resourceLimits?: ResourceLimits;
}

/**
 * Large answers processed in a small pool of worker threads (piscina), so
 * their JSON never holds the event loop. Bounded twice: the pool's threads
 * process that many at once, and the bytes waiting are capped. A worker that
 * crashes or runs out of memory fails only its own answer; the pool starts
 * another.
 */
export class WorkerLargeAnswers implements LargeAnswers {
  readonly thresholdBytes: number;
  readonly #pool: Piscina<AnswerTask, AnswerWorkerReply>;
  readonly #maxQueuedBytes: number;
  readonly #heapLimitMb: number;
  #queuedBytes = 0;

  constructor(options: WorkerLargeAnswersOptions) {
    this.thresholdBytes = options.thresholdBytes ?? DEFAULT_LARGE_ANSWER_BYTES;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_ANSWER_BYTES;
    const threads = options.threads ?? DEFAULT_ANSWER_THREADS;
    const resourceLimits = options.resourceLimits ?? RESOURCE_LIMITS;
    this.#heapLimitMb = resourceLimits.maxOldGenerationSizeMb ?? 0;
    this.#pool = new Piscina({
      filename: WORKER_FILE,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: options.idleTimeoutMs ?? 30_000,
      resourceLimits,
      // No inherited Node flags (a tracing --import is for the main thread); from src, the ones that load it.
      execArgv: EXTENSION === '.ts' ? SOURCE_EXEC_ARGV : [],
      workerData: { privacy: options.privacy } satisfies AnswerWorkerData,
      niceIncrement: NICE_INCREMENT,
    });
    // A worker that fails with no task in hand is replaced; unheard, the event would end the process.
    this.#pool.on('error', () => undefined);
  }

  async process(task: AnswerTask): Promise<ProcessedAnswer> {
    const size = sizeOf(task);
    if (
      this.#heapLimitMb > 0 &&
      size * HEAP_BYTES_PER_ANSWER_BYTE > (this.#heapLimitMb - WORKER_BASELINE_MB) * 1024 * 1024
    )
      throw tooComplex(size, this.#heapLimitMb);
    // One answer is always taken, however large: the byte limit of the read already bounds it.
    if (this.#queuedBytes > 0 && this.#queuedBytes + size > this.#maxQueuedBytes) {
      throw new OverloadedError(
        `The gateway is already processing ${this.#queuedBytes} bytes of large answers; try again shortly`,
      );
    }
    this.#queuedBytes += size;
    try {
      const reply = await this.#pool.run(task, { transferList: transferable(task) }).catch((error: unknown) => {
        throw workerFailure(error, task, this.#heapLimitMb);
      });
      if (reply.ok) return reply.answer;
      throw new DownstreamCallError(reply.message, reply.failure);
    } finally {
      this.#queuedBytes -= size;
    }
  }

  /** Stops the workers; answers still waiting are rejected. */
  async close(): Promise<void> {
    await this.#pool.destroy();
  }
}

function sizeOf({ source }: AnswerTask): number {
  return source.kind === 'downstream' ? source.bytes.byteLength : source.text.length;
}

/** The answer's bytes move to the worker without a copy when they fill their buffer (a body read whole does). */
function transferable({ source }: AnswerTask): ArrayBuffer[] | undefined {
  if (source.kind !== 'downstream') return undefined;
  const { buffer, byteOffset, byteLength } = source.bytes;
  return buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength ? [buffer] : undefined;
}

/**
 * A worker that ran out of memory was killed by this answer: the downstream's
 * answer is what failed, as with a too-large or too-deep one. Anything else
 * is the gateway's own failure (an internal error, as it would be in-thread).
 */
function workerFailure(error: unknown, task: AnswerTask, heapLimitMb: number): Error {
  if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY')
    return tooComplex(sizeOf(task), heapLimitMb, error);
  return error instanceof Error ? error : new Error(String(error));
}

function tooComplex(size: number, heapLimitMb: number, cause?: unknown): DownstreamCallError {
  const message =
    `Downstream response of ${size} bytes needs more than the ${heapLimitMb} MB the gateway gives one answer to ` +
    `decode`;
  return new DownstreamCallError(
    message,
    { reason: 'response-too-complex', heapLimitMb },
    cause === undefined ? undefined : { cause },
  );
}
