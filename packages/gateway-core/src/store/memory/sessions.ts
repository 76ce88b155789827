import type { SessionRecord, SessionStore } from '../ports.js';

interface Entry {
  session: SessionRecord;
  expiresAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Entry>();
  readonly #clock: () => number;
  #nextSweepAt = 0;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  async create(session: SessionRecord, idleTtlMs: number): Promise<void> {
    const now = this.#clock();
    this.#sweep(now);
    this.#sessions.set(session.sessionId, { session: structuredClone(session), expiresAt: now + idleTtlMs });
  }

  async touch(sessionId: string, idleTtlMs: number): Promise<SessionRecord | null> {
    const now = this.#clock();
    const entry = this.#sessions.get(sessionId);
    if (!entry) return null;
    if (entry.expiresAt <= now) {
      this.#sessions.delete(sessionId);
      return null;
    }
    entry.expiresAt = now + idleTtlMs;
    return structuredClone(entry.session);
  }

  async delete(sessionId: string): Promise<boolean> {
    const entry = this.#sessions.get(sessionId);
    this.#sessions.delete(sessionId);
    return entry !== undefined && entry.expiresAt > this.#clock();
  }

  /** Abandoned sessions are never touched again; drop them now and then so memory stays flat. */
  #sweep(now: number): void {
    if (now < this.#nextSweepAt) return;
    this.#nextSweepAt = now + SWEEP_INTERVAL_MS;
    for (const [id, entry] of this.#sessions) {
      if (entry.expiresAt <= now) this.#sessions.delete(id);
    }
  }
}
