/** Gives the slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

/** A slot, or why the wait for one ended without it. */
export type SlotOutcome = ReleaseSlot | 'timed-out' | 'aborted';

interface Waiter {
  grant: (release: ReleaseSlot) => void;
}

/**
 * A fixed number of slots shared by many keys (agents), handed out fairly:
 * each key waits in its own FIFO queue and the queues are served round-robin,
 * so a key with hundreds of waiters delays another key's next call by at most
 * one turn, not by its whole backlog. A slot set free goes straight to the
 * next waiter. Waits are bounded: by `maxWaitMs`, and by the caller's signal.
 */
export class FairSlots {
  readonly size: number;
  #free: number;
  /**
   * One queue per key that has waiters, in serving order: the first key is
   * served next and then moves to the back (a Map keeps insertion order).
   * Invariant: while any key waits, no slot is free.
   */
  readonly #queues = new Map<string, Waiter[]>();

  constructor(size: number) {
    if (!Number.isSafeInteger(size) || size < 1)
      throw new RangeError(`FairSlots size must be a positive integer, got ${size}`);
    this.size = size;
    this.#free = size;
  }

  get inUse(): number {
    return this.size - this.#free;
  }

  get waiting(): number {
    let count = 0;
    for (const queue of this.#queues.values()) count += queue.length;
    return count;
  }

  /** A free slot at once, or null when every slot is held (then `acquire` waits for one). */
  tryAcquire(): ReleaseSlot | null {
    if (this.#free === 0) return null;
    this.#free--;
    return this.#slot();
  }

  /** A slot for `key`, at once when one is free, else after a fair wait of at most `maxWaitMs`. */
  acquire(key: string, maxWaitMs: number, signal?: AbortSignal): Promise<SlotOutcome> {
    if (signal?.aborted) return Promise.resolve('aborted');
    const free = this.tryAcquire();
    if (free) return Promise.resolve(free);
    return new Promise<SlotOutcome>((resolve) => {
      const end = (outcome: 'timed-out' | 'aborted') => {
        stopWaiting();
        this.#remove(key, waiter);
        resolve(outcome);
      };
      const onAbort = () => end('aborted');
      const timer = setTimeout(() => end('timed-out'), maxWaitMs);
      const stopWaiting = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        grant: (release) => {
          stopWaiting();
          resolve(release);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.#queues.get(key);
      if (queue) queue.push(waiter);
      else this.#queues.set(key, [waiter]);
    });
  }

  #slot(): ReleaseSlot {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#handOn();
    };
  }

  /** A slot set free: to the next waiter in round-robin order, or back to the pool. */
  #handOn(): void {
    const first = this.#queues.entries().next();
    if (first.done) {
      this.#free++;
      return;
    }
    const [key, queue] = first.value;
    const waiter = queue.shift()!;
    this.#queues.delete(key);
    if (queue.length > 0) this.#queues.set(key, queue);
    waiter.grant(this.#slot());
  }

  #remove(key: string, waiter: Waiter): void {
    const queue = this.#queues.get(key);
    if (!queue) return;
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    // An emptied queue leaves the rotation; the key rejoins at the back when it waits again.
    if (queue.length === 0) this.#queues.delete(key);
  }
}
