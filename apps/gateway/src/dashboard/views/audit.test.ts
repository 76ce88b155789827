import type { AuditRecord } from '@tollgate/gateway-core/store';
import { describe, expect, it } from 'vitest';
import { AuditPage } from './audit.js';

const base: AuditRecord = {
  id: '1-0',
  time: '2030-01-01T00:00:00.000Z',
  kind: 'tool-call',
  agentId: 'agt_1',
  sessionId: 's1',
  tool: 'orders_get_order',
  outcome: 'ok',
  httpStatus: 200,
  jsonRpcCode: null,
  tokensCharged: 12,
  gatewayMs: 1.25,
  downstreamMs: 3,
  cacheTier: null,
  downstreamStatus: 200,
  argsDigest: 'abc',
  actor: null,
  requestId: null,
  detail: null,
};

const render = (records: AuditRecord[]) =>
  String(
    AuditPage({
      csrfToken: 't',
      filters: { agent: '', tool: '', outcome: '', from: '', to: '' },
      records,
      nextCursor: null,
      paged: false,
      agentIds: [],
      toolNames: [],
      outcomes: [],
    }),
  );

describe('the audit page', () => {
  it('shows who signed in where, the downstream and the call id of a call made with an OAuth token', () => {
    const html = render([
      {
        ...base,
        downstream: 'orders',
        callId: 'c0ffee',
        issuer: 'https://sso.example.com/realms/acme',
        subject: 'alice',
      },
    ]);
    expect(html).toMatch(/Signed in at[\s\S]*https:\/\/sso\.example\.com\/realms\/acme/);
    expect(html).toMatch(/Identity[\s\S]*alice/);
    expect(html).toMatch(/Call id[\s\S]*c0ffee/);
  });

  it('escapes an identity, which comes from outside', () => {
    const html = render([{ ...base, issuer: 'https://idp.example', subject: '<script>alert(1)</script>' }]);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;');
  });
});
