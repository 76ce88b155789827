/** Tuning shared by every store adapter; each default is what production wants. */
export interface StoreOptions {
  /** How long a budget reservation holds tokens before it lapses. Default 5 minutes. */
  reservationTtlMs?: number;
  /** Redis only: prefix of every key. Default `tollgate:`. */
  keyPrefix?: string;
  /** Redis only: a command that gets no answer within this fails as unavailable. Default 2000 ms. */
  commandTimeoutMs?: number;
  /** Redis only: how long to wait for a connection. Default 2000 ms. */
  connectTimeoutMs?: number;
  /** Redis only: told about connection errors (the client keeps reconnecting). */
  onError?: (error: Error) => void;
  /** Milliseconds since the epoch; injectable for tests of idle expiry. Default `Date.now`. */
  clock?: () => number;
}

export const DEFAULT_RESERVATION_TTL_MS = 5 * 60 * 1000;
