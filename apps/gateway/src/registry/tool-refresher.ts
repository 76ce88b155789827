import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditEvent } from '@tollgate/gateway-core';
import { readDownstreamTools, type DownstreamTools, type SchemaSource } from './read-downstream-tools.js';
import type { CatalogLoad, DownstreamLoad, ToolCatalog } from './tool-catalog.js';

export type { SchemaSource } from './read-downstream-tools.js';

/** The shared "someone refreshed" counter in the store (structural, so tests can pass a plain object). */
export interface RegistryGeneration {
  generation(): Promise<number>;
  bump(): Promise<number>;
}

export interface ToolRefresherOptions {
  catalog: ToolCatalog;
  downstreams: readonly SchemaSource[];
  /** Re-read `/gw/schema` this often; 0 = only on demand. */
  refreshIntervalMs: number;
  /** How often to look for a refresh made by another instance. */
  generationPollMs?: number;
  /** The first wait before reading again a schema that could not be used at start-up (doubling to 30 s). */
  unusableRetryMs?: number;
  /** A refresh that cannot reach a downstream gives up after this long and keeps its tools. Default 5 s. */
  refreshMaxWaitMs?: number;
  state?: RegistryGeneration;
  /** `notes`: imported OpenAPI operations with something left out or renamed. */
  onLoaded?: (load: DownstreamLoad, reason: string, notes: readonly string[]) => void;
  /** `downstream` is unset for a failure of no one downstream (reading the store's generation, say). */
  onError?: (error: unknown, reason: string, downstream?: string) => void;
  onRetry?: (attempt: number, reason: string, downstream: string) => void;
  /** Told about every reload an operator asked for, with who asked. */
  audit?: (event: AuditEvent) => void;
}

/** A reload: every downstream's tools together, and how each read went. */
export interface Reload extends CatalogLoad {
  downstreams: Array<{ name: string; ok: true; tools: number } | { name: string; ok: false; error: string }>;
}

const UNUSABLE_MAX_WAIT_MS = 30_000;

/**
 * Keeps the catalog in step with every downstream, each on its own: a
 * downstream's first load retries until it answers with a usable schema,
 * whatever the others do; later refreshes (periodic, on demand, or because
 * another instance refreshed) are bounded and keep a downstream's current
 * tools when it cannot be read. Calls in flight keep the registry they
 * started with, because the catalog swaps registries whole.
 */
export class ToolRefresher {
  readonly #options: ToolRefresherOptions;
  readonly #stop = new AbortController();
  /** Downstreams whose first load is still being retried: the periodic refresh leaves them to it. */
  readonly #starting = new Set<string>();
  #seenGeneration = 0;
  /** Per downstream, the digest of the OpenAPI document its tools came from. */
  readonly #digests = new Map<string, string>();
  #timers: NodeJS.Timeout[] = [];

  constructor(options: ToolRefresherOptions) {
    this.#options = options;
  }

  /**
   * Loads every downstream, each retrying until it can be read, and resolves
   * once every one has loaded (never, for one that stays down, unless stopped).
   */
  async initialLoad(): Promise<void> {
    this.#seenGeneration = await this.#currentGeneration();
    await Promise.all(this.#options.downstreams.map((source) => this.#firstLoad(source)));
  }

  /**
   * Re-reads every downstream's schema now; with `announce`, tells
   * other instances to follow. Throws when none could be read.
   */
  async refresh(reason: string, announce = false): Promise<Reload> {
    const reads = await Promise.all(this.#options.downstreams.map((source) => this.#refreshOne(source, reason)));
    if (reads.every((read) => !read.ok))
      throw new Error(reads.map((read) => (read.ok ? '' : `${read.name}: ${read.error}`)).join('; '));
    if (announce && this.#options.state) this.#seenGeneration = await this.#options.state.bump();
    return { ...(this.#options.catalog.lastLoad as CatalogLoad), downstreams: reads };
  }

  /** An operator's reload (management API, dashboard): announced to the other instances and audited with who asked. */
  async reload(actor: string | null, reason: string): Promise<Reload> {
    const reload = await this.refresh(reason, true);
    const failed = reload.downstreams.filter((read) => !read.ok).map((read) => read.name);
    const detail = `${reload.tools.length} tools${failed.length > 0 ? `; not read: ${failed.join(', ')}` : ''}`;
    this.#options.audit?.({ kind: 'management', outcome: 'tools.refreshed', actor, detail });
    return reload;
  }

  start(): void {
    const { refreshIntervalMs, generationPollMs = 5_000, state } = this.#options;
    if (refreshIntervalMs > 0) this.#every(refreshIntervalMs, () => this.#refreshStarted('periodic'));
    if (state) this.#every(generationPollMs, () => this.#followOtherInstances(state));
  }

  stop(): void {
    this.#stop.abort();
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
  }

  /**
   * Retries unreachable and 5xx with backoff (fetchToolSchema), and an unusable schema after a growing wait, until it
   * loads or the refresher stops.
   */
  async #firstLoad(source: SchemaSource): Promise<void> {
    const { catalog, onRetry, onError, unusableRetryMs = 1_000 } = this.#options;
    const signal = this.#stop.signal;
    this.#starting.add(source.name);
    try {
      for (let waitMs = unusableRetryMs; !signal.aborted; waitMs = Math.min(waitMs * 2, UNUSABLE_MAX_WAIT_MS)) {
        try {
          const read = await readDownstreamTools(source, {
            signal,
            onRetry: (attempt, reason) => {
              catalog.failed(source.name, reason);
              onRetry?.(attempt, reason, source.name);
            },
          });
          if (read !== 'unchanged') this.#apply(source, read, 'start-up');
          return;
        } catch (error) {
          if (signal.aborted) return;
          catalog.failed(source.name, error);
          onError?.(error, 'start-up', source.name);
          await sleep(waitMs, undefined, { signal }).catch(() => undefined);
        }
      }
    } finally {
      this.#starting.delete(source.name);
    }
  }

  async #refreshOne(source: SchemaSource, reason: string): Promise<Reload['downstreams'][number]> {
    try {
      const catalog = this.#options.catalog;
      // After a failed read the tools must be loaded again to clear the failure, changed or not.
      const failing = catalog.downstreams().find((status) => status.name === source.name)?.lastError != null;
      const lastDigest = failing ? undefined : this.#digests.get(source.name);
      const read = await readDownstreamTools(source, {
        signal: this.#stop.signal,
        maxWaitMs: this.#options.refreshMaxWaitMs ?? 5_000,
        lastDigest,
      });
      if (read === 'unchanged')
        return {
          name: source.name,
          ok: true,
          tools: catalog.downstreams().find((status) => status.name === source.name)?.toolCount ?? 0,
        };
      return { name: source.name, ok: true, tools: this.#apply(source, read, reason).tools.length };
    } catch (error) {
      this.#options.catalog.failed(source.name, error);
      if (!this.#stop.signal.aborted) this.#options.onError?.(error, reason, source.name);
      return { name: source.name, ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** The periodic refresh: each downstream past its first load, on its own. */
  async #refreshStarted(reason: string): Promise<void> {
    await Promise.all(
      this.#options.downstreams
        .filter((source) => !this.#starting.has(source.name))
        .map((source) => this.#refreshOne(source, reason)),
    );
  }

  async #followOtherInstances(state: RegistryGeneration): Promise<void> {
    const generation = await state.generation();
    if (generation === this.#seenGeneration) return;
    this.#seenGeneration = generation;
    await this.#refreshStarted('refreshed by another instance');
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

  #apply(source: SchemaSource, read: DownstreamTools, reason: string): DownstreamLoad {
    const load = this.#options.catalog.load(source.name, read.schema, new Date(), read.skipped);
    if (read.digest === null) this.#digests.delete(source.name);
    else this.#digests.set(source.name, read.digest);
    this.#options.onLoaded?.(load, reason, read.notes);
    return load;
  }
}
