import type { ConfigProblem } from '@tollgate/gateway-core/errors';
import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway-config.js';
import { defaultRateLimitFromSection } from './rate-limit-section.js';
import { readEnvironment } from './sources.js';

function parse(entries: Record<string, string>) {
  const problems: ConfigProblem[] = [];
  return { limit: defaultRateLimitFromSection(entries, problems), problems };
}

describe('Gw:RateLimit', () => {
  it('has no default limit unless both keys are set', () => {
    expect(parse({})).toEqual({ limit: null, problems: [] });
    expect(parse({ DefaultCallsPerMinute: '120', DefaultBurst: '20' })).toEqual({
      limit: { callsPerMinute: 120, burst: 20 },
      problems: [],
    });
    expect(parse({ defaultcallsperminute: ' 6 ', DEFAULTBURST: '3' }).limit).toEqual({ callsPerMinute: 6, burst: 3 });
  });

  it('names the missing half', () => {
    expect(parse({ DefaultCallsPerMinute: '120' })).toEqual({
      limit: null,
      problems: [{ path: 'Gw:RateLimit:DefaultBurst', message: expect.stringMatching(/required/) }],
    });
    expect(parse({ DefaultBurst: '2' }).problems).toEqual([
      { path: 'Gw:RateLimit:DefaultCallsPerMinute', message: expect.stringMatching(/required/) },
    ]);
  });

  it('refuses values that are not whole numbers in range, and unknown settings', () => {
    for (const bad of ['0', '-1', '2.5', 'ten', '', '60001']) {
      expect(parse({ DefaultCallsPerMinute: bad, DefaultBurst: '1' }).problems, bad).toEqual([
        { path: 'Gw:RateLimit:DefaultCallsPerMinute', message: 'must be a whole number from 1 to 60000' },
      ]);
    }
    expect(parse({ DefaultCallsPerMinute: '1', DefaultBurst: '10001' }).problems).toEqual([
      { path: 'Gw:RateLimit:DefaultBurst', message: 'must be a whole number from 1 to 10000' },
    ]);
    expect(parse({ CallsPerMinute: '5' }).problems).toEqual([
      { path: 'Gw:RateLimit:CallsPerMinute', message: expect.stringMatching(/unknown setting/) },
    ]);
  });
});

describe('Gw:RateLimit in the gateway configuration', () => {
  const base = {
    Gw__LicenseKey: 'lic',
    Gw__Jwt__SigningKey: 'k'.repeat(32),
    Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081',
  };

  it('reaches the configuration from env vars; a missing half stops start-up naming the key', () => {
    expect(parseGatewayConfig(readEnvironment(base)).config.rateLimit).toEqual({ defaultLimit: null });
    const env = { ...base, Gw__RateLimit__DefaultCallsPerMinute: '120', Gw__RateLimit__DefaultBurst: '20' };
    expect(parseGatewayConfig(readEnvironment(env)).config.rateLimit).toEqual({
      defaultLimit: { callsPerMinute: 120, burst: 20 },
    });
    expect(() => parseGatewayConfig(readEnvironment({ ...base, Gw__RateLimit__DefaultBurst: '20' }))).toThrow(
      /Gw:RateLimit:DefaultCallsPerMinute: is required/,
    );
  });
});
