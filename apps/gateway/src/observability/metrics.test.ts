import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from './metrics.js';

describe('GatewayMetrics', () => {
  it('derives call, latency, token, cache and refusal metrics from audit events', async () => {
    const metrics = new GatewayMetrics((name) => name === 'get_order');
    metrics.observe({
      kind: 'tool-call',
      outcome: 'ok',
      tool: 'get_order',
      gatewayMs: 0.4,
      downstreamMs: 3,
      tokensCharged: 120,
    });
    metrics.observe({
      kind: 'tool-call',
      outcome: 'cache-hit',
      tool: 'get_order',
      gatewayMs: 0.2,
      cacheTier: 'exact',
      tokensCharged: 120,
    });
    metrics.observe({ kind: 'tool-call', outcome: 'budget-exhausted', tool: 'get_order', gatewayMs: 0.1 });
    metrics.observe({ kind: 'tool-call', outcome: 'unknown-tool', tool: 'rm -rf', gatewayMs: 0.1 });
    metrics.breakerState('open');
    metrics.storeError();
    metrics.countPendingSettlements(() => 3);
    const text = await metrics.text();
    expect(text).toContain('tollgate_tool_calls_total{tool="get_order",outcome="ok"} 1');
    expect(text).toContain('tollgate_tool_calls_total{tool="(none)",outcome="unknown-tool"} 1');
    expect(text).toContain('tollgate_tokens_charged_total{tool="get_order"} 240');
    expect(text).toContain('tollgate_cache_hits_total{tier="exact"} 1');
    expect(text).toContain('tollgate_budget_refusals_total 1');
    expect(text).toContain('tollgate_breaker_state 2');
    expect(text).toContain('tollgate_store_errors_total 1');
    expect(text).toContain('tollgate_budget_settlements_pending 3');
    expect(text).toContain('tollgate_gateway_added_seconds_bucket{le="0.0005",tool="get_order"} 3');
    expect(text).toContain('tollgate_downstream_seconds_count{tool="get_order"} 1');
    expect(text).not.toContain('rm -rf');
  });

  it('counts calls made through search mode call_tool under the tool they ran, and apart', async () => {
    const metrics = new GatewayMetrics((name) => name === 'get_order');
    metrics.observe({ kind: 'tool-call', outcome: 'ok', tool: 'get_order', via: 'call_tool' });
    metrics.observe({ kind: 'tool-call', outcome: 'ok', tool: 'get_order' });
    const text = await metrics.text();
    expect(text).toContain('tollgate_tool_calls_total{tool="get_order",outcome="ok"} 2');
    expect(text).toContain('tollgate_call_tool_calls_total{tool="get_order",outcome="ok"} 1');
  });
});
