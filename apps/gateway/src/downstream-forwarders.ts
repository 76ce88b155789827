import {
  createResilientForwarder,
  DownstreamRouter,
  HttpForwarder,
  type BreakerState,
  type BreakerStateChange,
  type HttpForwarderOptions,
  type ResilientForwarder,
} from '@tollgate/gateway-core';
import type { DownstreamConfig } from './config/downstreams-section.js';

export interface DownstreamForwardersOptions {
  /** Answers longer than this are decoded in a worker thread. */
  largeAnswerBytes: number;
  /** More options for one downstream's HttpForwarder (its assertion audience, say). */
  forwarderOptions?: (downstream: DownstreamConfig) => Partial<HttpForwarderOptions>;
  onStateChange?: (downstream: string, change: BreakerStateChange) => void;
}

/** One HTTP pool, deadline, retries and breaker per downstream, behind one router the pipeline calls. */
export interface DownstreamForwarders {
  router: DownstreamRouter<ResilientForwarder>;
  /** Each downstream's breaker, by name. */
  breakerState(downstream: string): BreakerState | undefined;
  /** The worst state of all breakers: what a single gauge or badge can say about them. */
  worstBreakerState(): BreakerState;
  /** The longest deadline of any downstream: how long a call may wait for budget held by calls in flight. */
  longestTimeoutMs: number;
  close(): Promise<void>;
}

const SEVERITY: Record<BreakerState, number> = { closed: 0, 'half-open': 1, open: 2 };

export function downstreamForwarders(
  downstreams: readonly DownstreamConfig[],
  options: DownstreamForwardersOptions,
): DownstreamForwarders {
  const pools: HttpForwarder[] = [];
  const router = new DownstreamRouter(
    downstreams.map((downstream) => {
      const pool = new HttpForwarder({
        baseUrl: downstream.baseUrl,
        headers: downstream.headers,
        timeoutMs: downstream.resilience.deadlineMs,
        maxResponseBytes: downstream.maxResponseBytes,
        largeAnswerBytes: options.largeAnswerBytes,
        ...options.forwarderOptions?.(downstream),
      });
      pools.push(pool);
      const resilient = createResilientForwarder(pool, {
        ...downstream.resilience,
        // One slot per pooled connection: calls wait their turn
        // here, before their deadline starts, never inside the pool.
        connections: pool.connections,
        onStateChange: (change) => options.onStateChange?.(downstream.name, change),
        // Named in refusals when there are several; the one of the single-key form stays unnamed.
        ...(downstreams.length > 1 ? { downstream: downstream.name } : {}),
      });
      return [downstream.name, resilient] as const;
    }),
  );
  return {
    router,
    breakerState: (downstream) => router.get(downstream)?.breakerState,
    worstBreakerState() {
      let worst: BreakerState = 'closed';
      for (const [, forwarder] of router.entries())
        if (SEVERITY[forwarder.breakerState] > SEVERITY[worst]) worst = forwarder.breakerState;
      return worst;
    },
    longestTimeoutMs: Math.max(...downstreams.map((downstream) => downstream.resilience.deadlineMs)),
    async close() {
      await Promise.allSettled(pools.map((pool) => pool.close()));
    },
  };
}
