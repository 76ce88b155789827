import { setTimeout as sleep } from 'node:timers/promises';

/** Runs `probe` until it stops throwing, every 50 ms; past `timeoutMs`, its last error is thrown. */
export async function eventually(probe: () => Promise<unknown>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await probe();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}
