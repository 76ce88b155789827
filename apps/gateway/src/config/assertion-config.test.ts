import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway-config.js';
import { readEnvironment } from './sources.js';
import { configProblems } from './config-test-support.js';

const base = {
  Gw__LicenseKey: 'lic-123',
  Gw__Jwt__SigningKey: 'k'.repeat(32),
  Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081',
};

const parse = (env: Record<string, string>) => parseGatewayConfig(readEnvironment({ ...base, ...env })).config;

function problemsOf(env: Record<string, string>): string[] {
  return configProblems(() => parse(env));
}

describe('Gw:Assertion:*', () => {
  it('is on by default: ES256, issuer tollgate, hourly keys, a minute of life', () => {
    expect(parse({}).assertion).toEqual({
      enabled: true,
      algorithm: 'ES256',
      issuer: 'tollgate',
      rotationMinutes: 60,
      lifetimeSeconds: 60,
    });
  });

  it('reads every key, fractions of a minute included', () => {
    expect(
      parse({
        Gw__Assertion__Enabled: 'false',
        Gw__Assertion__Algorithm: 'EdDSA',
        Gw__Assertion__Issuer: 'gateway.example',
        Gw__Assertion__RotationMinutes: '0.05',
        Gw__Assertion__LifetimeSeconds: '30',
      }).assertion,
    ).toEqual({
      enabled: false,
      algorithm: 'EdDSA',
      issuer: 'gateway.example',
      rotationMinutes: 0.05,
      lifetimeSeconds: 30,
    });
  });

  it('names the key of each problem', () => {
    expect(
      problemsOf({
        Gw__Assertion__Algorithm: 'RS256',
        Gw__Assertion__RotationMinutes: '0',
        Gw__Assertion__LifetimeSeconds: '61',
        Gw__Assertion__Enabled: 'yes',
      }),
    ).toEqual(
      expect.arrayContaining([
        'Gw:Assertion:Enabled: must be true or false',
        'Gw:Assertion:Algorithm: must be EdDSA or ES256',
        'Gw:Assertion:RotationMinutes: must be at least one second (0.0167 minutes); fractions are allowed',
        'Gw:Assertion:LifetimeSeconds: must be a whole number from 1 to 60',
      ]),
    );
  });
});
