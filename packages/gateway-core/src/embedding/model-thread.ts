import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { EmbedRequest, WorkerMessage } from './local-model-worker.js';
import { EmbeddingModelError } from './port.js';

interface Pending {
  resolve(vectors: number[][]): void;
  reject(error: EmbeddingModelError): void;
}

/**
 * The main thread's side of one model worker: replies are matched to
 * requests by id, and when the worker exits (crash, out of memory,
 * `terminate`) every request still pending is rejected. A thread that has
 * exited stays dead; its owner starts a new one.
 *
 * The worker holds the process open only while it loads or has requests
 * pending, so an idle model never delays the process's exit.
 */
export class ModelThread {
  /** Settles when the model has loaded in the worker, or the worker exited first. */
  readonly ready: Promise<void>;
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #loaded = false;
  #stopped: EmbeddingModelError | undefined;
  #stopReason: string | undefined;

  constructor(file: URL, resourceLimits: ResourceLimits, onExit: (thread: ModelThread) => void) {
    // No inherited Node flags: the worker only runs the model, and flags meant for the
    // main script (`--input-type`, a tracing `--import`) break or burden it.
    this.#worker = new Worker(file, { resourceLimits, execArgv: [] });
    let failure: Error | undefined;
    this.ready = new Promise((resolve, reject) => {
      this.#worker.on('message', (message: WorkerMessage) => {
        if (message !== 'ready') return this.#settle(message);
        this.#loaded = true;
        this.#holdProcess();
        resolve();
      });
      this.#worker.on('error', (error) => (failure = error));
      this.#worker.on('exit', (code) => {
        this.#stopped = new EmbeddingModelError(
          `the embedding worker stopped: ${this.#stopReason ?? failure?.message ?? `exit code ${code}`}`,
          { cause: failure },
        );
        reject(this.#stopped);
        for (const pending of this.#pending.values()) pending.reject(this.#stopped);
        this.#pending.clear();
        onExit(this);
      });
    });
    // Awaited by each request; a load failure must not also surface as an unhandled rejection.
    this.ready.catch(() => {});
  }

  async embed(texts: string[]): Promise<number[][]> {
    await this.ready;
    if (this.#stopped) throw this.#stopped;
    const id = this.#nextId++;
    const vectors = new Promise<number[][]>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#holdProcess();
    this.#worker.postMessage({ id, texts } satisfies EmbedRequest);
    return vectors;
  }

  /** Stops the worker; requests still pending reject, naming `reason`. */
  async terminate(reason: string): Promise<void> {
    this.#stopReason ??= reason;
    await this.#worker.terminate();
  }

  #settle(reply: Exclude<WorkerMessage, 'ready'>): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    this.#holdProcess();
    if ('error' in reply) pending.reject(new EmbeddingModelError(`the local embedding model failed: ${reply.error}`));
    else pending.resolve(reply.vectors);
  }

  #holdProcess(): void {
    if (!this.#loaded || this.#pending.size > 0) this.#worker.ref();
    else this.#worker.unref();
  }
}
