import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { isAtLeast, negotiateProtocolVersion, protocolVersionForRequest } from './protocol-version.js';

describe('negotiateProtocolVersion', () => {
  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])(
    'answers a supported version (%s) with itself',
    (version) => {
      expect(negotiateProtocolVersion(version)).toBe(version);
    },
  );

  it.each(['2099-01-01', '2024-10-07', '', undefined, 42])(
    'answers the newest supported version (2025-11-25) to %s',
    (version) => {
      expect(negotiateProtocolVersion(version)).toBe('2025-11-25');
    },
  );
});

describe('protocolVersionForRequest', () => {
  it('uses the negotiated version when the header is absent', () => {
    expect(protocolVersionForRequest(undefined, '2025-03-26')).toBe('2025-03-26');
  });

  it('accepts the header when it names the negotiated version', () => {
    expect(protocolVersionForRequest('2025-06-18', '2025-06-18')).toBe('2025-06-18');
  });

  it('refuses an unsupported version with 400 / -32600', () => {
    const attempt = () => protocolVersionForRequest('1999-01-01', '2025-06-18');
    expect(attempt).toThrow(InvalidRequestError);
    expect(attempt).toThrow(/Unsupported MCP-Protocol-Version/);
  });

  it('accepts any supported version, also one the session did not negotiate (MCP: 400 only for unsupported)', () => {
    expect(protocolVersionForRequest('2025-03-26', '2025-11-25')).toBe('2025-03-26');
    expect(protocolVersionForRequest(' 2025-11-25 ', '2025-06-18')).toBe('2025-11-25');
    expect(() => protocolVersionForRequest('garbage', '2025-06-18')).toThrow(InvalidRequestError);
  });
});

describe('isAtLeast', () => {
  it('orders versions by date', () => {
    expect(isAtLeast('2025-06-18', '2025-03-26')).toBe(true);
    expect(isAtLeast('2024-11-05', '2025-03-26')).toBe(false);
    expect(isAtLeast('2025-03-26', '2025-03-26')).toBe(true);
  });
});
