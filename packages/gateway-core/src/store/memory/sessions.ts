import { randomBytes } from 'node:crypto';
import type { SessionRecord, SessionStore } from '../ports.js';

interface Entry {
  session: SessionRecord;
  expiresAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Sessions in a map, with each agent's session ids beside them for the cap.
 * Every touch sets the expiry to now + idle TTL, so the session with the
 * earliest expiry is the one used least recently: the one the cap ends.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Entry>();
  /** Each agent's session ids; ids whose session is gone are dropped when the agent next opens one. */
  readonly #byAgent = new Map<string, Set<string>>();
  readonly #clock: () => number;
  #nextSweepAt = 0;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  newSessionId(): string {
    return randomBytes(24).toString('base64url');
  }

  async create(session: SessionRecord, idleTtlMs: number, maxPerAgent: number): Promise<string[]> {
    const now = this.#clock();
    this.#sweep(now);
    let ids = this.#byAgent.get(session.agentId);
    if (!ids) this.#byAgent.set(session.agentId, (ids = new Set()));
    const ended = ids.size >= maxPerAgent ? this.#endOldest(ids, now, maxPerAgent - 1) : [];
    this.#sessions.set(session.sessionId, { session: structuredClone(session), expiresAt: now + idleTtlMs });
    ids.add(session.sessionId);
    return ended;
  }

  async touch(sessionId: string, idleTtlMs: number): Promise<SessionRecord | null> {
    const now = this.#clock();
    const entry = this.#sessions.get(sessionId);
    if (!entry) return null;
    if (entry.expiresAt <= now) {
      this.#remove(sessionId, entry);
      return null;
    }
    entry.expiresAt = now + idleTtlMs;
    return structuredClone(entry.session);
  }

  async delete(sessionId: string): Promise<boolean> {
    const entry = this.#sessions.get(sessionId);
    if (entry) this.#remove(sessionId, entry);
    return entry !== undefined && entry.expiresAt > this.#clock();
  }

  /** Drops the agent's ids whose session is gone, then ends the least recently used until `keep` are left. */
  #endOldest(ids: Set<string>, now: number, keep: number): string[] {
    const live: Array<{ id: string; expiresAt: number }> = [];
    for (const id of ids) {
      const entry = this.#sessions.get(id);
      if (entry && entry.expiresAt > now) live.push({ id, expiresAt: entry.expiresAt });
      else {
        ids.delete(id);
        if (entry) this.#sessions.delete(id);
      }
    }
    // Stable sort: of two sessions last used in the same millisecond, the older one goes first.
    const ended = live
      .sort((a, b) => a.expiresAt - b.expiresAt)
      .slice(0, Math.max(live.length - keep, 0))
      .map(({ id }) => id);
    for (const id of ended) {
      ids.delete(id);
      this.#sessions.delete(id);
    }
    return ended;
  }

  #remove(sessionId: string, entry: Entry): void {
    this.#sessions.delete(sessionId);
    const ids = this.#byAgent.get(entry.session.agentId);
    ids?.delete(sessionId);
    if (ids?.size === 0) this.#byAgent.delete(entry.session.agentId);
  }

  /** Abandoned sessions are never touched again; drop them now and then so memory stays flat. */
  #sweep(now: number): void {
    if (now < this.#nextSweepAt) return;
    this.#nextSweepAt = now + SWEEP_INTERVAL_MS;
    for (const [id, entry] of this.#sessions) {
      if (entry.expiresAt <= now) this.#remove(id, entry);
    }
  }
}
