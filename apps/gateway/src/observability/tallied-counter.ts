import { Counter, type Registry } from 'prom-client';

/** One series: its labels, what it counted, and how much of that prom-client has been handed. */
interface Tally {
  readonly labels: Record<string, string>;
  value: number;
  handed: number;
  /** Whether the Counter lists it yet: a series that counted only 0 is listed, as prom-client lists it. */
  listed: boolean;
}

/**
 * A prom-client Counter with up to two labels whose hot path is a plain
 * addition: each label combination's count lives in a number found by two
 * Map lookups, and the increase since the last scrape is handed to the
 * Counter when it is collected. prom-client's own `inc` hashes and validates
 * the labels on every call (about 0.4 us, and garbage); here that happens
 * once per series per scrape. The exposition, and the cluster aggregation of
 * `getMetricsAsJSON`, are the Counter's own.
 */
export class TalliedCounter {
  readonly #counter: Counter;
  readonly #labelNames: readonly string[];
  readonly #byFirst = new Map<string, Map<string, Tally>>();
  /** In the order the series first counted, as prom-client would list them. */
  readonly #tallies: Tally[] = [];

  constructor(options: {
    name: string;
    help: string;
    labelNames: readonly [string] | readonly [string, string];
    registry: Registry;
  }) {
    this.#labelNames = options.labelNames;
    this.#counter = new Counter({
      name: options.name,
      help: options.help,
      labelNames: options.labelNames,
      registers: [options.registry],
      collect: () => this.#handOver(),
    });
  }

  /** Adds `by` (default 1) to the series of these label values, in the order of `labelNames`. */
  add(first: string, second = '', by = 1): void {
    // Refused as prom-client's inc refuses it, but when counted rather than at the next scrape.
    if (!(by >= 0 && by !== Infinity)) throw new TypeError(`Value is not a valid counter increase: ${by}`);
    let inner = this.#byFirst.get(first);
    if (inner === undefined) this.#byFirst.set(first, (inner = new Map()));
    let tally = inner.get(second);
    if (tally === undefined) inner.set(second, (tally = this.#newTally(first, second)));
    tally.value += by;
  }

  #newTally(first: string, second: string): Tally {
    const [firstName, secondName] = this.#labelNames;
    const labels: Record<string, string> = { [firstName!]: first };
    if (secondName !== undefined) labels[secondName] = second;
    const tally = { labels, value: 0, handed: 0, listed: false };
    this.#tallies.push(tally);
    return tally;
  }

  #handOver(): void {
    for (const tally of this.#tallies) {
      const increase = tally.value - tally.handed;
      if (increase === 0 && tally.listed) continue;
      this.#counter.inc(tally.labels, increase);
      tally.handed = tally.value;
      tally.listed = true;
    }
  }
}
