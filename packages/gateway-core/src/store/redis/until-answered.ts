import { StoreUnavailableError } from '../../errors.js';

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 1_000;

/**
 * Sends a write that must reach Redis though nobody waits for it, until
 * Redis answers it (a store failure means it may not have run, so it is sent
 * again: the writes given here are safe to run twice), or until `deadlineMs`
 * (epoch ms) passes, after which it no longer matters. Retries back off from
 * 100 ms to 1 s, on timers that never keep the process alive. Never rejects.
 */
export async function sendUntilAnswered(write: () => Promise<unknown>, deadlineMs: number): Promise<void> {
  for (let delay = FIRST_RETRY_MS; Date.now() < deadlineMs; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
    try {
      await write();
      return;
    } catch (error) {
      // An error reply is a bug in the write, not an outage: sending it again would fail again.
      if (!(error instanceof StoreUnavailableError)) return;
    }
    await new Promise((resolve) => setTimeout(resolve, delay).unref());
  }
}
