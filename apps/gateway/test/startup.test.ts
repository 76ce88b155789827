import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GATEWAY_MAIN,
  gatewayEnv,
  runToExit,
  startDownstream,
  startGateway,
  type RunningProcess,
} from './support/processes.js';

describe('gateway start-up (dist/main.js)', () => {
  let downstream: RunningProcess;

  beforeAll(async () => {
    downstream = await startDownstream();
  });
  afterAll(async () => {
    await downstream?.stop();
  });

  const refusals: Array<[string, Record<string, string | undefined>, RegExp]> = [
    ['no license key', { Gw__LicenseKey: undefined }, /^tollgate: refusing to start: Gw:LicenseKey: is required/],
    [
      'a short signing key',
      { Gw__Jwt__SigningKey: 'too-short' },
      /^tollgate: refusing to start: Gw:Jwt:SigningKey: must be at least 32 bytes/,
    ],
    [
      'an admin API key under 32 characters',
      { Gw__Admin__ApiKey: 'a'.repeat(31) },
      /^tollgate: refusing to start: Gw:Admin:ApiKey: must be at least 32 characters/,
    ],
    [
      'an admin API key of 32 spaces (issue 25)',
      { Gw__Admin__ApiKey: ' '.repeat(32) },
      /^tollgate: refusing to start: Gw:Admin:ApiKey: is blank/,
    ],
    [
      'an admin API key of one character repeated (issue 25)',
      { Gw__Admin__ApiKey: 'a'.repeat(32) },
      /^tollgate: refusing to start: Gw:Admin:ApiKey: is one piece repeated/,
    ],
    [
      'an invalid store address',
      { ConnectionStrings__Store: 'mysql://db' },
      /^tollgate: refusing to start: ConnectionStrings:Store: must be a redis/,
    ],
    [
      'an unreadable config file',
      { TOLLGATE_CONFIG_FILE: '/nonexistent/gateway.json' },
      /^tollgate: refusing to start: config file \/nonexistent\/gateway.json cannot be read/,
    ],
  ];

  it.each(refusals)('refuses to start with %s: exit 1, one line, no stack trace', async (_, env, line) => {
    const result = await runToExit(GATEWAY_MAIN, gatewayEnv({ downstreamUrl: downstream.url, env }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(line);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('accepts a short admin API key in development mode, with a warning that does not show the key', async () => {
    const gateway = await startGateway({ downstreamUrl: downstream.url, development: true, adminApiKey: 'dev-admin' });
    try {
      expect(gateway.output()).toContain(
        'tollgate: warning: Gw:Admin:ApiKey is shorter than 32 characters: accepted in development mode only',
      );
      expect(gateway.output()).not.toContain('dev-admin');
      const token = await fetch(`${gateway.url}/auth/admin/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiKey: 'dev-admin' }),
      });
      expect(token.status).toBe(200);
    } finally {
      await gateway.stop('SIGTERM');
    }
  });

  it('starts, loads the downstream tools and becomes ready', async () => {
    const gateway = await startGateway({ downstreamUrl: downstream.url });
    try {
      expect((await fetch(`${gateway.url}/health/live`)).status).toBe(200);
      const ready = await waitReady(gateway.url);
      expect(ready).toEqual({
        status: 'Healthy',
        components: { cacheStore: { status: 'Healthy' }, embeddingModel: { status: 'Healthy' } },
      });
    } finally {
      expect(await gateway.stop('SIGTERM')).toBe(0);
    }
  });
});

async function waitReady(url: string): Promise<unknown> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const response = await fetch(`${url}/health/ready`);
    if (response.status === 200) return response.json();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('gateway never became ready');
}
