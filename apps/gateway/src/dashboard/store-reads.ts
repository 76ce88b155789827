import { StoreUnavailableError } from '@tollgate/gateway-core/errors';

/** A read's value, or why it cannot be shown now. */
export type Shown<T> = { value: T; problem?: undefined } | { value?: undefined; problem: string };

/**
 * A read that fails for want of the store (on a Redis Cluster: a master
 * counted away, issue 25 finding 12) is said on the page, in one line,
 * instead of turning the whole page into an error: the overview still shows
 * readiness, which says what is away. Nothing is shown in part: the read
 * gave all of its answer or none. Any other failure is thrown as before.
 */
export async function unlessStoreUnavailable<T>(read: Promise<T>, what: string): Promise<Shown<T>> {
  try {
    return { value: await read };
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    const reason = error.message.charAt(0).toLowerCase() + error.message.slice(1);
    return { problem: `${what} cannot be shown now: ${reason.replace(/\.?$/, '.')}` };
  }
}
