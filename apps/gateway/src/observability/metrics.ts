import type { AuditEvent, BreakerState } from '@tollgate/gateway-core';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { BucketHistogram } from './bucket-histogram.js';
import { answerPrimaryScrapes } from './cluster-metrics.js';
import { TalliedCounter } from './tallied-counter.js';

/** Sub-millisecond buckets: the gateway's own share of a call is meant to be well under a millisecond. */
const GATEWAY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const DOWNSTREAM_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/**
 * How often the event-loop lag histogram samples. prom-client's default, 10 ms, wakes an idle gateway
 * 100 times a second (7.5 ms of CPU a second, nearly all of its idle cost); a stall longer than this is
 * still measured in full, a shorter one is caught with a probability of its length over this.
 */
const EVENT_LOOP_SAMPLE_MS = 100;
const BREAKER_VALUE: Record<BreakerState, number> = { closed: 0, 'half-open': 1, open: 2 };

/**
 * The gateway's Prometheus metrics. Tool-call metrics are derived from the
 * same event the audit trail records, so the two can never disagree about
 * what happened. Label values are bounded: tool names come from the
 * registry (unknown names are folded into one value), outcomes from a fixed list.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  // Per-call series: counted in plain numbers and handed to
  // prom-client when scraped (see TalliedCounter, BucketHistogram).
  readonly #calls = new TalliedCounter({
    name: 'tollgate_tool_calls_total',
    help: 'tools/call requests by tool and outcome',
    labelNames: ['tool', 'outcome'],
    registry: this.registry,
  });
  readonly #gatewayLatency = new BucketHistogram(
    'tollgate_gateway_added_seconds',
    'Time a tools/call spent in the gateway, downstream time excluded',
    'tool',
    GATEWAY_BUCKETS,
    this.registry,
  );
  readonly #downstreamLatency = new BucketHistogram(
    'tollgate_downstream_seconds',
    'Downstream time of forwarded tools/call requests',
    'tool',
    DOWNSTREAM_BUCKETS,
    this.registry,
  );
  readonly #tokens = new TalliedCounter({
    name: 'tollgate_tokens_charged_total',
    help: 'Tokens charged to agent budgets',
    labelNames: ['tool'],
    registry: this.registry,
  });
  readonly #budgetRefusals = new Counter({
    name: 'tollgate_budget_refusals_total',
    help: 'tools/call refused because the daily budget was exhausted',
    registers: [this.registry],
  });
  // Search mode (issue 28): calls made through call_tool, by the tool they ran (also counted in
  // tollgate_tool_calls_total under that tool).
  readonly #viaCallTool = new TalliedCounter({
    name: 'tollgate_call_tool_calls_total',
    help: 'tools/call requests made through search mode call_tool, by the tool run and outcome',
    labelNames: ['tool', 'outcome'],
    registry: this.registry,
  });
  readonly #cacheHits = new TalliedCounter({
    name: 'tollgate_cache_hits_total',
    help: 'tools/call answered from the cache, by tier',
    labelNames: ['tier'],
    registry: this.registry,
  });
  readonly #storeErrors = new Counter({
    name: 'tollgate_store_errors_total',
    help: 'Store outages and failed store commands reported',
    registers: [this.registry],
  });
  // Each worker process has its own breaker: across workers (Gw:Http:Workers) the worst state is reported, not a sum.
  readonly #breaker = new Gauge({
    name: 'tollgate_breaker_state',
    help: 'Downstream circuit breaker: 0 closed, 1 half-open, 2 open',
    aggregator: 'max',
    registers: [this.registry],
  });
  // Per downstream (Gw:Downstreams): label values are configured names, never caller input.
  readonly #downstreamCalls = new TalliedCounter({
    name: 'tollgate_downstream_calls_total',
    help: 'tools/call requests by downstream and outcome',
    labelNames: ['downstream', 'outcome'],
    registry: this.registry,
  });
  readonly #downstreamBreaker = new Gauge({
    name: 'tollgate_downstream_breaker_state',
    help: 'Circuit breaker per downstream: 0 closed, 1 half-open, 2 open',
    labelNames: ['downstream'],
    aggregator: 'max',
    registers: [this.registry],
  });
  #downstreamToolCounts: () => Record<string, number> = () => ({});
  readonly #downstreamTools: Gauge = new Gauge({
    name: 'tollgate_downstream_tools',
    help: 'Tools served per downstream (0 while its schema is not loaded)',
    labelNames: ['downstream'],
    aggregator: 'max',
    registers: [this.registry],
    collect: () => {
      for (const [downstream, count] of Object.entries(this.#downstreamToolCounts()))
        this.#downstreamTools.set({ downstream }, count);
    },
  });
  readonly #managementChanges = new Counter({
    name: 'tollgate_management_changes_total',
    help: 'Management changes by kind',
    labelNames: ['change'],
    registers: [this.registry],
  });
  #pendingSettlements: () => number = () => 0;
  readonly #settlementsGauge: Gauge = new Gauge({
    name: 'tollgate_budget_settlements_pending',
    help:
      'Budget settlements and releases written after the reply, not yet in the store (grows while the store is ' +
      'down)',
    registers: [this.registry],
    collect: () => {
      this.#settlementsGauge.set(this.#pendingSettlements());
    },
  });

  constructor(private readonly knownTool: (name: string) => boolean) {
    collectDefaultMetrics({
      register: this.registry,
      prefix: 'tollgate_',
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
    this.#breaker.set(0);
    // In a cluster worker, the primary's Gw:Metrics:Port merges this registry with the other workers'.
    answerPrimaryScrapes(this.registry);
  }

  /** Fed every audit event. */
  observe(event: AuditEvent): void {
    if (event.kind === 'management') {
      this.#managementChanges.inc({ change: event.outcome });
      return;
    }
    const tool = event.tool && this.knownTool(event.tool) ? event.tool : '(none)';
    this.#calls.add(tool, event.outcome);
    if (event.via === 'call_tool') this.#viaCallTool.add(tool, event.outcome);
    if (event.downstream) this.#downstreamCalls.add(event.downstream, event.outcome);
    if (event.gatewayMs != null) this.#gatewayLatency.observe(tool, event.gatewayMs / 1000);
    if (event.downstreamMs != null) this.#downstreamLatency.observe(tool, event.downstreamMs / 1000);
    if (event.tokensCharged) this.#tokens.add(tool, '', event.tokensCharged);
    if (event.outcome === 'budget-exhausted') this.#budgetRefusals.inc();
    if (event.cacheTier) this.#cacheHits.add(event.cacheTier);
  }

  storeError(): void {
    this.#storeErrors.inc();
  }

  /** Where `tollgate_budget_settlements_pending` is read from, at each scrape. */
  countPendingSettlements(pending: () => number): void {
    this.#pendingSettlements = pending;
  }

  breakerState(state: BreakerState): void {
    this.#breaker.set(BREAKER_VALUE[state]);
  }

  downstreamBreakerState(downstream: string, state: BreakerState): void {
    this.#downstreamBreaker.set({ downstream }, BREAKER_VALUE[state]);
  }

  /** Where `tollgate_downstream_tools` is read from, at each scrape. */
  countDownstreamTools(counts: () => Record<string, number>): void {
    this.#downstreamToolCounts = counts;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
