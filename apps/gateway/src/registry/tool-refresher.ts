import type { AuditEvent } from '@tollgate/gateway-core';
import type { CatalogLoad, ToolCatalog } from './tool-catalog.js';
import { fetchToolSchema } from './fetch-tool-schema.js';

/** The shared "someone refreshed" counter in the store (structural, so tests can pass a plain object). */
export interface RegistryGeneration {
  generation(): Promise<number>;
  bump(): Promise<number>;
}

export interface ToolRefresherOptions {
  catalog: ToolCatalog;
  downstreamBaseUrl: string;
  /** Re-read `/gw/schema` this often; 0 = only on demand. */
  refreshIntervalMs: number;
  /** How often to look for a refresh made by another instance. */
  generationPollMs?: number;
  state?: RegistryGeneration;
  onLoaded?: (load: CatalogLoad, reason: string) => void;
  onError?: (error: unknown, reason: string) => void;
  onRetry?: (attempt: number, reason: string) => void;
  /** Told about every reload an operator asked for, with who asked. */
  audit?: (event: AuditEvent) => void;
}

/** A refresh that cannot reach the downstream gives up after this long and keeps the old tools. */
const REFRESH_MAX_WAIT_MS = 5_000;

/**
 * Keeps the catalog in step with the downstream: the first load retries until
 * the downstream answers; later refreshes (periodic, on demand, or because
 * another instance refreshed) are bounded and keep the current tools when the
 * downstream is unreachable. Calls in flight keep the registry they started
 * with, because the catalog swaps registries whole.
 */
export class ToolRefresher {
  readonly #options: ToolRefresherOptions;
  readonly #stop = new AbortController();
  #seenGeneration = 0;
  #timers: NodeJS.Timeout[] = [];

  constructor(options: ToolRefresherOptions) {
    this.#options = options;
  }

  async initialLoad(): Promise<CatalogLoad> {
    this.#seenGeneration = await this.#currentGeneration();
    const schema = await fetchToolSchema({
      downstreamBaseUrl: this.#options.downstreamBaseUrl,
      signal: this.#stop.signal,
      onRetry: this.#options.onRetry,
    });
    return this.#apply(schema, 'start-up');
  }

  /** Re-reads the schema now; with `announce`, tells other instances to follow. */
  async refresh(reason: string, announce = false): Promise<CatalogLoad> {
    const schema = await fetchToolSchema({
      downstreamBaseUrl: this.#options.downstreamBaseUrl,
      signal: this.#stop.signal,
      maxWaitMs: REFRESH_MAX_WAIT_MS,
    });
    const load = this.#apply(schema, reason);
    if (announce && this.#options.state) this.#seenGeneration = await this.#options.state.bump();
    return load;
  }

  /** An operator's reload (management API, dashboard): announced to the other instances and audited with who asked. */
  async reload(actor: string | null, reason: string): Promise<CatalogLoad> {
    const load = await this.refresh(reason, true);
    this.#options.audit?.({ kind: 'management', outcome: 'tools.refreshed', actor, detail: `${load.tools.length} tools` });
    return load;
  }

  start(): void {
    const { refreshIntervalMs, generationPollMs = 5_000, state } = this.#options;
    if (refreshIntervalMs > 0) this.#every(refreshIntervalMs, () => this.refresh('periodic'));
    if (state) this.#every(generationPollMs, () => this.#followOtherInstances(state));
  }

  stop(): void {
    this.#stop.abort();
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
  }

  async #followOtherInstances(state: RegistryGeneration): Promise<void> {
    const generation = await state.generation();
    if (generation === this.#seenGeneration) return;
    this.#seenGeneration = generation;
    await this.refresh('refreshed by another instance');
  }

  #every(ms: number, task: () => Promise<unknown>): void {
    let running = false;
    const timer = setInterval(() => {
      if (running || !this.#options.catalog.loaded) return;
      running = true;
      task()
        .catch((error: unknown) => {
          if (!this.#stop.signal.aborted) this.#options.onError?.(error, 'background refresh');
        })
        .finally(() => (running = false));
    }, ms);
    timer.unref();
    this.#timers.push(timer);
  }

  async #currentGeneration(): Promise<number> {
    return this.#options.state ? this.#options.state.generation().catch(() => 0) : 0;
  }

  #apply(schema: unknown, reason: string): CatalogLoad {
    const load = this.#options.catalog.load(schema);
    this.#options.onLoaded?.(load, reason);
    return load;
  }
}
