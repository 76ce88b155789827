import type { ResponseCache, SemanticCandidate } from '../ports.js';

interface Entry {
  text: string;
  expiresAt: number;
}

interface HeldCandidate {
  vector: Float32Array;
  expiresAt: number;
}

/**
 * Responses and candidate groups in Maps whose insertion order is their
 * recency: a read moves an entry to the end, and past `maxEntries` the
 * first (least recently used) entries go.
 */
export class MemoryResponseCache implements ResponseCache {
  readonly #entries = new Map<string, Entry>();
  readonly #groups = new Map<string, Map<string, HeldCandidate>>();
  readonly #maxEntries: number;
  readonly #clock: () => number;

  constructor(maxEntries: number, clock: () => number) {
    this.#maxEntries = maxEntries;
    this.#clock = clock;
  }

  async get(key: string): Promise<string | null> {
    const entry = this.#entries.get(key);
    if (!entry) return null;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.#clock()) return null;
    this.#entries.set(key, entry);
    return entry.text;
  }

  async set(key: string, text: string, ttlMs: number): Promise<void> {
    this.#entries.delete(key);
    this.#entries.set(key, { text, expiresAt: this.#clock() + ttlMs });
    dropOldest(this.#entries, this.#maxEntries);
  }

  async candidates(groupKey: string): Promise<SemanticCandidate[]> {
    const group = this.#groups.get(groupKey);
    if (!group) return [];
    const now = this.#clock();
    const live: SemanticCandidate[] = [];
    for (const [responseKey, held] of group) {
      if (held.expiresAt <= now) group.delete(responseKey);
      else live.push({ responseKey, vector: held.vector.slice() });
    }
    this.#groups.delete(groupKey);
    if (group.size > 0) this.#groups.set(groupKey, group);
    return live;
  }

  async addCandidate(
    groupKey: string,
    candidate: SemanticCandidate,
    ttlMs: number,
    maxCandidates: number,
  ): Promise<void> {
    const group = this.#groups.get(groupKey) ?? new Map<string, HeldCandidate>();
    this.#groups.delete(groupKey);
    this.#groups.set(groupKey, group);
    group.delete(candidate.responseKey);
    group.set(candidate.responseKey, { vector: candidate.vector.slice(), expiresAt: this.#clock() + ttlMs });
    if (group.size > maxCandidates) {
      const now = this.#clock();
      for (const [key, held] of group) if (held.expiresAt <= now) group.delete(key);
      dropOldest(group, maxCandidates);
    }
    dropOldest(this.#groups, this.#maxEntries);
  }
}

function dropOldest<K, V>(map: Map<K, V>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}
