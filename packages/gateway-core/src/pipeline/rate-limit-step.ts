import { RateLimitedError } from '../errors.js';
import type { AgentRecord, RateLimiter } from '../store/ports.js';
import { inSpan, SPAN_NAMES } from '../tracing.js';
import type { EarlyRateTake } from './early-rate-limit.js';

export interface RateLimitCheck {
  agent: AgentRecord;
  /** The take sent alongside authentication, judged here when it was made on the agent's current limit. */
  takenAhead?: EarlyRateTake | null;
  /** Absent, no limit is enforced. */
  limiter?: RateLimiter;
  clock: () => Date;
}

/**
 * The limits step: counts the call against the agent's rate limit, or
 * refuses it (`rate-limited`) with when the next call would pass. Nothing
 * to do for an agent without a limit. Runs after the access checks and
 * before the budget, so a refused call reserves no budget (one reserved
 * ahead is given back by its caller).
 */
export async function checkRateLimit({ agent, takenAhead, limiter, clock }: RateLimitCheck): Promise<void> {
  const limit = agent.rateLimit;
  const early = await takenAhead?.take(agent);
  if (!limit || limiter === undefined) return;
  await inSpan(SPAN_NAMES.rateLimit, async () => {
    const taken = early ?? (await limiter.take(agent.agentId, limit, clock()));
    if (taken.ok) return;
    const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
    throw new RateLimitedError(
      `Rate limit of ${limit.callsPerMinute} calls per minute (burst ${limit.burst}) reached (code -32029); the ` +
        `next call passes in ${seconds} s`,
      limit,
      taken.retryAfterMs,
      { now: clock() },
    );
  });
}
