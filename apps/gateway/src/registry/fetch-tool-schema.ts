import pRetry from 'p-retry';

export interface FetchToolSchemaOptions {
  downstreamBaseUrl: string;
  /** Called before each retry so start-up logs say why the gateway is waiting. */
  onRetry?: (attempt: number, reason: string) => void;
  /** Give up after this long; undefined = keep trying until reachable. */
  maxWaitMs?: number;
  signal?: AbortSignal;
}

/**
 * Reads `GET {downstream}/gw/schema` (contract 4.5). The downstream may start
 * after the gateway, so unreachable or 5xx answers are retried with jittered
 * backoff; a 4xx or a body that is not a JSON array will not fix itself and fails at once.
 */
export async function fetchToolSchema(options: FetchToolSchemaOptions): Promise<unknown> {
  const url = new URL('/gw/schema', options.downstreamBaseUrl);
  return retryingRead(() => readOnce(url, options.signal), options);
}

export type RetryingReadOptions = Omit<FetchToolSchemaOptions, 'downstreamBaseUrl'>;

/** Runs `read` until it succeeds, with jittered backoff; a SchemaUnusableError ends it at once. */
export async function retryingRead<T>(read: () => Promise<T>, options: RetryingReadOptions): Promise<T> {
  return pRetry(read, {
    retries: Number.POSITIVE_INFINITY,
    factor: 1.6,
    minTimeout: 200,
    maxTimeout: 5_000,
    randomize: true,
    maxRetryTime: options.maxWaitMs ?? Number.POSITIVE_INFINITY,
    signal: options.signal,
    shouldRetry: ({ error }) => !(error instanceof SchemaUnusableError),
    onFailedAttempt: ({ error, attemptNumber }) => options.onRetry?.(attemptNumber, error.message),
  });
}

export class SchemaUnusableError extends Error {
  override readonly name = 'SchemaUnusableError';
}

async function readOnce(url: URL, signal: AbortSignal | undefined): Promise<unknown> {
  const response = await fetch(url, {
    signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(5_000)]) : AbortSignal.timeout(5_000),
  });
  if (response.status >= 500) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  if (!response.ok) throw new SchemaUnusableError(`${url} answered ${response.status}`);
  let schema: unknown;
  try {
    schema = await response.json();
  } catch {
    throw new SchemaUnusableError(`${url} did not answer JSON`);
  }
  // Not a list of tools at all: the downstream's tools are not loaded, rather than loaded as none.
  if (!Array.isArray(schema)) throw new SchemaUnusableError(`${url} did not answer a JSON array of tool definitions`);
  return schema;
}
