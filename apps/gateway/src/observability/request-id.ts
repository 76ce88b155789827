import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The id of the request being handled, kept across its async work. Its own
 * module so that both the logger (which reads it for every line) and the
 * request-context middleware (which sets it and logs through the logger)
 * depend on it, not on each other.
 */
interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The request id of the request being handled, for log lines (see the logger's mixin). */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Runs `work` as the request `requestId`: every log line written meanwhile carries it. */
export function runAsRequest<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}
