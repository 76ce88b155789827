import { StoreUnavailableError } from '../../errors.js';
import { keySlot } from './slots.js';

/** What this module reads of a node-redis cluster client (its public slot map and masters). */
interface MasterNode {
  readonly address: string;
  readonly client?: { readonly isReady: boolean; ping(): Promise<unknown> } | undefined;
}
export interface SlotMap {
  readonly isReady: boolean;
  readonly slots: ReadonlyArray<{ readonly master: MasterNode } | undefined>;
  readonly masters: readonly MasterNode[];
}

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 1_000;

/**
 * Which masters of a Redis Cluster answer, so that a command for a slot of
 * one that does not fails at once instead of waiting out the command timeout
 * (issue 25, finding 12): a frozen master (SIGSTOP, a stuck disk) keeps its
 * connections open, so node-redis queues its commands there and nothing
 * fails by itself. The agents stored on the other masters never wait on it.
 *
 * A master is counted away when a PING sent to it gets no answer within
 * `suspectMs` while another master answers one sent after it; such a PING is
 * sent when a command for it has waited `suspectMs` (or, when the command's
 * keys are not known, to every master: the healthy ones answer it at once),
 * or when readiness found it not answering.
 * Then one PING at a time asks it again: a frozen master answers the PING
 * that waits there the moment it thaws, and a restarted one is asked again
 * with backoff until its connection is back. Nothing else is sent to it
 * meanwhile, so no queue builds up behind a frozen master.
 */
export class MasterHealth {
  readonly #away = new Set<string>();
  readonly #asking = new Set<string>();
  readonly #awayListeners: Array<(address: string) => void> = [];
  #closed = false;

  constructor(
    private readonly cluster: SlotMap,
    private readonly suspectMs: number,
  ) {}

  /** The addresses of the masters serving these keys' slots; undefined until the cluster is discovered. */
  mastersOf(keys: string | readonly string[]): string[] | undefined {
    if (!this.cluster.isReady) return undefined;
    const addresses: string[] = [];
    for (const key of typeof keys === 'string' ? [keys] : keys) {
      const address = this.cluster.slots[keySlot(key)]?.master.address;
      if (address !== undefined && !addresses.includes(address)) addresses.push(address);
    }
    return addresses;
  }

  /** The error to fail a command with at once when one of its masters is away; null when all are thought to answer. */
  refusal(masters: readonly string[]): StoreUnavailableError | null {
    const away = masters.find((address) => this.#away.has(address));
    return away === undefined
      ? null
      : new StoreUnavailableError(`The store is unavailable: the Redis Cluster master ${away} does not answer`);
  }

  isAway(address: string): boolean {
    return this.#away.has(address);
  }

  /** Called with a master's address when it is counted away (its commands in flight are then given up). */
  onAway(listener: (address: string) => void): void {
    this.#awayListeners.push(listener);
  }

  /**
   * A command for these masters (undefined: for masters unknown) has waited `suspectMs`: ask each whether it answers.
   */
  suspect(masters: readonly string[] | undefined): void {
    for (const address of masters ?? this.cluster.masters.map((master) => master.address)) this.#ask(address);
  }

  close(): void {
    this.#closed = true;
  }

  #countAway(address: string): void {
    if (this.#away.has(address) || this.#closed) return;
    this.#away.add(address);
    for (const listener of this.#awayListeners) listener(address);
  }

  /** One PING at a time per master, until one is answered. */
  #ask(address: string): void {
    if (this.#asking.has(address) || this.#closed) return;
    this.#asking.add(address);
    void this.#askUntilAnswered(address).finally(() => this.#asking.delete(address));
  }

  async #askUntilAnswered(address: string): Promise<void> {
    for (let delay = FIRST_RETRY_MS; !this.#closed; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
      const node = this.cluster.masters.find((master) => master.address === address);
      // No longer a master (a replica took over its slots): nothing is to be refused for it.
      if (node === undefined || (await this.#answers(node))) {
        this.#away.delete(address);
        return;
      }
      this.#countAway(address);
      await new Promise((resolve) => setTimeout(resolve, delay).unref());
    }
  }

  /**
   * Whether the master answers a PING; counted away meanwhile if the answer takes longer than `suspectMs` (see
   * `#awayIfOthersAnswer`).
   */
  async #answers(node: MasterNode): Promise<boolean> {
    const client = node.client;
    if (!client?.isReady) return false;
    let answered = false;
    const late = setTimeout(() => void this.#awayIfOthersAnswer(node.address, () => answered), this.suspectMs).unref();
    try {
      await client.ping();
      return true;
    } catch {
      return false;
    } finally {
      answered = true;
      clearTimeout(late);
    }
  }

  /**
   * Counts a master away once another master answers a PING sent after this
   * one's went unanswered: a gateway (or a host) too busy to read any answer
   * in time says nothing about one master, and must not refuse every agent.
   * With no other master to compare with, none is counted away here: the
   * command timeout still applies.
   */
  async #awayIfOthersAnswer(address: string, answered: () => boolean): Promise<void> {
    const others = this.cluster.masters.filter(
      (master) => master.address !== address && !this.#away.has(master.address) && master.client?.isReady,
    );
    const someoneAnswered = await Promise.any(others.map((master) => master.client!.ping())).then(
      () => true,
      () => false,
    );
    if (someoneAnswered && !answered()) this.#countAway(address);
  }
}
