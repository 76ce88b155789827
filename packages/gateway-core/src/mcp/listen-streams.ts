import { TooManyListensError } from '../errors.js';
import type { ChangeFeed, ToolListChange } from '../store/ports.js';
import type { RegisteredTool } from '../tools/registry.js';

export interface ListenLimits {
  /** Open `subscriptions/listen` streams one agent may hold on this instance. */
  maxPerAgent: number;
  /** Open streams on this instance, all agents together. */
  maxTotal: number;
}

/**
 * A client keeps one listen stream per connection, so 10 per agent leaves
 * room for a handful of workers sharing a credential; 10,000 on an instance
 * is about 10,000 idle sockets and timers, far below what exhausts it.
 */
export const DEFAULT_LISTEN_LIMITS: ListenLimits = { maxPerAgent: 10, maxTotal: 10_000 };

/**
 * The `subscriptions/listen` streams open on this instance, by agent. A
 * change published on the store by any instance (a downstream's tools
 * reloaded: every agent; an agent's allowlist or scopes changed: that agent)
 * reaches each stream it concerns. A stream holds no call slot and no budget.
 */
export class ListenStreams {
  readonly #feed: ChangeFeed;
  readonly #limits: ListenLimits;
  readonly #byAgent = new Map<string, Set<() => void>>();
  #total = 0;

  constructor(feed: ChangeFeed, limits: Partial<ListenLimits> = {}) {
    this.#feed = feed;
    this.#limits = { ...DEFAULT_LISTEN_LIMITS, ...limits };
    // At once, not with the first stream: a stream acknowledged before the subscription is live could miss a change.
    feed.subscribe((change) => this.#deliver(change));
  }

  get open(): number {
    return this.#total;
  }

  /**
   * Registers one stream of `agentId`; `notify` runs on each change
   * that concerns it. Returns its close (safe to call twice).
   */
  listen(agentId: string, notify: () => void): () => void {
    const mine = this.#byAgent.get(agentId) ?? new Set();
    if (mine.size >= this.#limits.maxPerAgent)
      throw new TooManyListensError(
        `This agent already holds ${this.#limits.maxPerAgent} listen streams on this instance: close one first`,
      );
    if (this.#total >= this.#limits.maxTotal)
      throw new TooManyListensError('This gateway instance holds as many listen streams as it allows: retry later');
    // Each stream its own function, so one agent's two streams are two entries.
    const entry = () => notify();
    mine.add(entry);
    this.#byAgent.set(agentId, mine);
    this.#total += 1;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      mine.delete(entry);
      this.#total -= 1;
      if (mine.size === 0 && this.#byAgent.get(agentId) === mine) this.#byAgent.delete(agentId);
    };
  }

  /** Tells every instance (this one included) that a tool list changed. */
  publish(change: ToolListChange): Promise<void> {
    return this.#feed.publish(change);
  }

  #deliver(change: ToolListChange): void {
    const targets =
      change.agentId === null
        ? [...this.#byAgent.values()]
        : [this.#byAgent.get(change.agentId) ?? new Set<() => void>()];
    for (const streams of targets) for (const notify of [...streams]) notify();
  }
}

/**
 * Watches the tools loaded from the downstreams: when a reload changes them
 * (a tool added, removed or redefined), every agent's list changed. Each
 * instance reloads on its own, so each publishes what it sees; a client may
 * hear of one change more than once, which `tools/list` makes harmless.
 */
export class ToolListWatch {
  readonly #publish: (change: ToolListChange) => Promise<void>;
  #last: string | null = null;

  constructor(publish: (change: ToolListChange) => Promise<void>) {
    this.#publish = publish;
  }

  /** The tools now loaded; the first call only remembers them. */
  seen(tools: readonly RegisteredTool[], onError: (error: unknown) => void = () => undefined): void {
    const signature = JSON.stringify(tools.map((tool) => [tool.definition, tool.inputSchema]));
    if (this.#last !== null && signature !== this.#last) this.#publish({ agentId: null }).catch(onError);
    this.#last = signature;
  }
}
