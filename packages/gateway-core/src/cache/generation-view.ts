import { performance } from 'node:perf_hooks';
import type { GenerationCounter } from '../store/ports.js';

/**
 * This instance's view of a generation counter every instance shares (the
 * cache generation), so that a call does not read it from the store: it is
 * read again at most every `refreshMs`, in the background once the value is
 * half that old, so calls under load never wait for it.
 *
 * The bound it keeps: the value a call uses comes from a read sent at most
 * `refreshMs` before the call asked, so a bump that finished (on any
 * instance) more than `refreshMs` earlier is always seen. When no such value
 * can be had without waiting on a slow store (a read failed, or one has been
 * pending for half the interval), `current` answers null at once: the
 * caller then skips the cache rather than wait or serve what may be stale.
 * With `refreshMs` 0 every call reads the counter itself.
 */
export class GenerationView {
  #value = 0;
  /** When the read (or bump) that gave `#value` was sent: the latest bump it can vouch for. */
  #valueSentAt = Number.NEGATIVE_INFINITY;
  #reading: { sentAt: number; done: Promise<number | null> } | null = null;
  #failedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly counter: GenerationCounter,
    private readonly refreshMs: number,
    private readonly onError: (error: unknown) => void,
    /** Milliseconds, any origin (tests pass their own). */
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** The generation as last read, fresh or not (a key prefix to try before the fresh one is known). */
  get lastRead(): number {
    return this.#value;
  }

  /**
   * Sends a read if one is due and none is in flight (with `refreshMs` 0:
   * always) and returns it; null when none was sent. Never rejects: a failed
   * read resolves to null.
   */
  refresh(now = this.clock()): Promise<number | null> | null {
    if (this.refreshMs === 0) return this.#read(now);
    if (this.#reading !== null) return null;
    const half = this.refreshMs / 2;
    if (now - this.#valueSentAt < half || now - this.#failedAt < half) return null;
    return this.#read(now);
  }

  /**
   * The generation to use now, or null (see the class). `ownRead`: a read
   * sent for this very call after it arrived (`refresh`'s answer), used when
   * the value known is not fresh enough.
   */
  async current(ownRead?: Promise<number | null> | null): Promise<number | null> {
    const now = this.clock();
    if (this.refreshMs > 0) void this.refresh(now); // never rejects (#read reports its errors)
    if (now - this.#valueSentAt < this.refreshMs) return this.#value;
    if (ownRead) return ownRead;
    if (this.refreshMs === 0) return this.#read(now);
    const reading = this.#reading;
    if (reading !== null) return now - reading.sentAt <= this.refreshMs / 2 ? reading.done : null;
    return now - this.#failedAt < this.refreshMs ? null : this.#read(now);
  }

  /**
   * Bumps the counter (a write through this instance) and knows the new
   * value at once. When the bump fails, whether it happened is unknown: no
   * value known vouches for now, and `current` answers null until a read
   * succeeds. Rejects with the bump's error.
   */
  async bump(): Promise<void> {
    const sentAt = this.clock();
    try {
      this.#accept(await this.counter.bump(), sentAt);
    } catch (error) {
      this.#valueSentAt = Number.NEGATIVE_INFINITY;
      this.#failedAt = this.clock();
      throw error;
    }
  }

  #accept(value: number, sentAt: number): void {
    // A read sent before a bump must not take the bump back.
    if (sentAt <= this.#valueSentAt) return;
    this.#value = value;
    this.#valueSentAt = sentAt;
  }

  #read(sentAt: number): Promise<number | null> {
    let sent: Promise<number>;
    try {
      sent = this.counter.generation();
    } catch (error) {
      sent = Promise.reject(error);
    }
    const done: Promise<number | null> = sent.then(
      (value) => {
        this.#accept(value, sentAt);
        return value;
      },
      (error: unknown) => {
        this.#failedAt = this.clock();
        this.#report(error);
        return null;
      },
    );
    const reading = { sentAt, done };
    this.#reading = reading;
    void done.then(() => {
      if (this.#reading === reading) this.#reading = null;
    });
    return done;
  }

  #report(error: unknown): void {
    try {
      this.onError(error);
    } catch {
      // A throwing handler must not turn a miss into an error.
    }
  }
}
