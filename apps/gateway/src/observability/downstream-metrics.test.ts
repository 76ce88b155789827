import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from './metrics.js';

describe('GatewayMetrics per downstream', () => {
  it('counts calls, breaker state and tools served with a downstream label, leaving the unlabelled series as they were', async () => {
    const metrics = new GatewayMetrics((name) => name === 'orders_get_order');
    metrics.observe({
      kind: 'tool-call',
      outcome: 'ok',
      tool: 'orders_get_order',
      downstream: 'orders',
      gatewayMs: 0.2,
    });
    metrics.observe({
      kind: 'tool-call',
      outcome: 'circuit-open',
      tool: 'orders_get_order',
      downstream: 'orders',
      gatewayMs: 0.1,
    });
    metrics.observe({ kind: 'tool-call', outcome: 'unknown-tool', tool: 'nope', gatewayMs: 0.1 });
    metrics.downstreamBreakerState('orders', 'open');
    metrics.downstreamBreakerState('catalog', 'closed');
    metrics.breakerState('open');
    metrics.countDownstreamTools(() => ({ orders: 2, catalog: 5, billing: 0 }));
    const text = await metrics.text();
    expect(text).toContain('tollgate_downstream_calls_total{downstream="orders",outcome="ok"} 1');
    expect(text).toContain('tollgate_downstream_calls_total{downstream="orders",outcome="circuit-open"} 1');
    expect(text).not.toMatch(/tollgate_downstream_calls_total\{[^}]*outcome="unknown-tool"/);
    expect(text).toContain('tollgate_downstream_breaker_state{downstream="orders"} 2');
    expect(text).toContain('tollgate_downstream_breaker_state{downstream="catalog"} 0');
    expect(text).toContain('tollgate_downstream_tools{downstream="billing"} 0');
    expect(text).toContain('tollgate_downstream_tools{downstream="catalog"} 5');
    expect(text).toContain('tollgate_tool_calls_total{tool="orders_get_order",outcome="ok"} 1');
    expect(text).toContain('tollgate_breaker_state 2');
  });
});
