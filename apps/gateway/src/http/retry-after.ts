/**
 * The `Retry-After` value for a refusal whose data says when to come back
 * (`retryAfterSeconds`): whole seconds, at least 1. Undefined when it says nothing.
 */
export function retryAfterHeader(data: unknown): string | undefined {
  const seconds = (data as { retryAfterSeconds?: unknown } | null | undefined)?.retryAfterSeconds;
  return typeof seconds === 'number' ? String(Math.max(1, Math.ceil(seconds))) : undefined;
}
