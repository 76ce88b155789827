import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../audit/trail.js';
import { ToolCallRecord } from './tool-call-record.js';

const sent = { ok: true as const, result: { content: [{ type: 'text' as const, text: '{}' }] as [{ type: 'text'; text: string }] }, truncated: false, tool: 'get_order', argsDigest: 'd', cacheTier: null, downstreamStatus: 200, downstreamMs: 3, tokensCharged: 12, downstreamAnswer: null };

describe('ToolCallRecord', () => {
  it('writes one audit event naming the downstream, the call id of its assertion and an external caller', () => {
    const events: AuditEvent[] = [];
    const record = new ToolCallRecord((event) => events.push(event));
    const timing = record.end({ agentId: 'agt_1', sessionId: 's1', issuer: 'https://idp.example', subject: 'alice' }, { ...sent, downstream: 'orders', callId: 'call-1' });
    expect(events).toEqual([
      expect.objectContaining({ kind: 'tool-call', outcome: 'ok', agentId: 'agt_1', tool: 'get_order', downstream: 'orders', callId: 'call-1', issuer: 'https://idp.example', subject: 'alice' }),
    ]);
    expect(timing).toMatch(/^gateway;dur=[\d.]+, downstream;dur=3\.00$/);
  });

  it('leaves those fields out of a call that never reached a downstream', () => {
    const events: AuditEvent[] = [];
    new ToolCallRecord((event) => events.push(event)).end({ agentId: null, sessionId: null }, { ...sent, downstreamStatus: null, downstreamMs: null });
    expect(events[0]).not.toHaveProperty('downstream');
    expect(events[0]).not.toHaveProperty('callId');
    expect(events[0]).not.toHaveProperty('issuer');
  });
});
