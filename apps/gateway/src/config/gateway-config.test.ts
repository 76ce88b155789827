import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveResilienceOptions } from '@tollgate/gateway-core';
import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway-config.js';
import { loadGatewayConfig } from './load.js';
import { readEnvironment } from './sources.js';
import { configProblems } from './config-test-support.js';

const KEY = 'k'.repeat(32);
/** An admin API key as `openssl rand -hex 16` writes one. */
const ADMIN_KEY = '0530b39113aa763bdf8a51faaca39de2';
const base = {
  Gw__LicenseKey: 'lic-123',
  Gw__Jwt__SigningKey: KEY,
  Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081',
};

function parse(env: Record<string, string>) {
  return parseGatewayConfig(readEnvironment(env));
}

function problemsOf(env: Record<string, string>): string[] {
  return configProblems(() => parse(env));
}

describe('gateway configuration', () => {
  it('reads the spec keys from env vars with __ and applies defaults', () => {
    const { config, warnings } = parse(base);
    expect(config.licenseKey).toBe('lic-123');
    expect(config.jwt).toEqual({ signingKey: KEY, generated: false });
    expect(config.downstream.baseUrl).toBe('http://127.0.0.1:8081');
    expect(config.server).toEqual({ port: 8080, host: '0.0.0.0' });
    expect(config.admin).toEqual({
      apiKey: undefined,
      tokenExpiryDays: 90,
      signInMaxFailures: 5,
      signInBackoffMs: 1000,
    });
    expect(config.store.connectionString).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('matches key names case-insensitively', () => {
    const { config } = parse({ ...base, GW__ADMIN__APIKEY: ADMIN_KEY, gw__admin__tokenexpirydays: '7' });
    expect(config.admin).toEqual({
      apiKey: ADMIN_KEY,
      tokenExpiryDays: 7,
      signInMaxFailures: 5,
      signInBackoffMs: 1000,
    });
  });

  it('refuses to start without a license key, naming the key', () => {
    const { Gw__LicenseKey: _, ...rest } = base;
    expect(problemsOf(rest)).toEqual([
      'Gw:LicenseKey: is required: the gateway refuses to start without a license key',
    ]);
    expect(problemsOf({ ...base, Gw__LicenseKey: '   ' })[0]).toMatch(/^Gw:LicenseKey: is required/);
  });

  it('refuses a signing key under 32 bytes', () => {
    expect(problemsOf({ ...base, Gw__Jwt__SigningKey: 'short' })).toEqual([
      'Gw:Jwt:SigningKey: must be at least 32 bytes (e.g. openssl rand -hex 32)',
    ]);
  });

  it('refuses an admin API key under 32 characters in production, naming the key and not showing it', () => {
    const problems = problemsOf({ ...base, Gw__Admin__ApiKey: 'short-admin-secret' });
    expect(problems).toEqual(['Gw:Admin:ApiKey: must be at least 32 characters (e.g. openssl rand -hex 32)']);
    expect(problems.join('\n')).not.toContain('short-admin-secret');
    expect(problemsOf({ ...base, Gw__Admin__ApiKey: 'a'.repeat(31) })).toHaveLength(1);
    expect(parse({ ...base, Gw__Admin__ApiKey: ADMIN_KEY }).config.admin.apiKey).toBe(ADMIN_KEY);
  });

  // Issue 25, finding 9: 32 spaces read as unset, and 32 × "a" passed the length floor.
  it.each([
    [
      '32 spaces',
      ' '.repeat(32),
      'Gw:Admin:ApiKey: is blank: set a random key (e.g. openssl rand -hex 32), or leave it unset to turn the management API off',
    ],
    [
      'an empty value',
      '',
      'Gw:Admin:ApiKey: is blank: set a random key (e.g. openssl rand -hex 32), or leave it unset to turn the management API off',
    ],
    [
      'one character 32 times',
      'a'.repeat(32),
      'Gw:Admin:ApiKey: is one piece repeated, so it can be guessed: use a random key (e.g. openssl rand -hex 32)',
    ],
    [
      'two characters',
      `${'ab'.repeat(20)}ba`,
      'Gw:Admin:ApiKey: has too few different characters, so it can be guessed: use a random key (e.g. openssl rand -hex 32)',
    ],
  ])('refuses an admin API key of %s with one problem naming the key', (_, key, problem) => {
    expect(problemsOf({ ...base, Gw__Admin__ApiKey: key })).toEqual([problem]);
  });

  it('refuses a blank admin API key in development mode too, and only warns of a guessable one', () => {
    expect(problemsOf({ ...base, NODE_ENV: 'development', Gw__Admin__ApiKey: '  ' })).toEqual([
      expect.stringMatching(/^Gw:Admin:ApiKey: is blank/),
    ]);
    expect(parse({ ...base, NODE_ENV: 'development', Gw__Admin__ApiKey: 'x'.repeat(40) }).warnings).toEqual([
      'Gw:Admin:ApiKey is one piece repeated: accepted in development mode only',
    ]);
  });

  it('accepts a short admin API key in development mode, with a warning that does not show it', () => {
    const { config, warnings } = parse({ ...base, NODE_ENV: 'development', Gw__Admin__ApiKey: 'dev-secret' });
    expect(config.admin.apiKey).toBe('dev-secret');
    expect(warnings).toEqual(['Gw:Admin:ApiKey is shorter than 32 characters: accepted in development mode only']);
  });

  it('refuses an invalid store address and accepts redis URLs', () => {
    expect(problemsOf({ ...base, ConnectionStrings__Store: 'localhost:6379' })[0]).toMatch(
      /^ConnectionStrings:Store: must be a redis/,
    );
    expect(parse({ ...base, ConnectionStrings__Store: 'redis://127.0.0.1:6379/0' }).config.store.connectionString).toBe(
      'redis://127.0.0.1:6379/0',
    );
  });

  it('reports every problem at once, one line each', () => {
    const problems = problemsOf({
      PORT: 'abc',
      Gw__Admin__TokenExpiryDays: '-1',
      Gw__ToolRegistry__DownstreamBaseUrl: 'ftp://x',
    });
    expect(problems).toHaveLength(5);
    expect(problems.every((line) => !line.includes('\n'))).toBe(true);
  });

  it('generates a signing key only in development mode, with a warning', () => {
    const { Gw__Jwt__SigningKey: _, ...rest } = base;
    expect(problemsOf(rest)[0]).toMatch(/^Gw:Jwt:SigningKey: is required/);
    const { config, warnings } = parse({ ...rest, NODE_ENV: 'development' });
    expect(config.jwt.generated).toBe(true);
    expect(Buffer.byteLength(config.jwt.signingKey)).toBeGreaterThanOrEqual(32);
    expect(warnings[0]).toMatch(/generated a key/);
  });

  it('collects downstream headers and rejects CR/LF in them', () => {
    const { config } = parse({ ...base, Gw__Downstream__Headers__X_Api_Key: 'abc' });
    expect(config.downstream.headers).toEqual({ X_Api_Key: 'abc' });
    expect(problemsOf({ ...base, Gw__Downstream__Headers__X: 'a\r\nInjected: 1' })).toEqual([
      'Gw:Downstream:Headers:X: must not contain CR, LF or NUL',
    ]);
  });

  it('reads a JSON config file with the same nested keys, env winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-config-'));
    const file = join(dir, 'gateway.json');
    writeFileSync(file, JSON.stringify({ Gw: { LicenseKey: 'from-file', Admin: { TokenExpiryDays: 5 } } }));
    const { config } = loadGatewayConfig(['--config', file], { ...base, Gw__LicenseKey: 'from-env' });
    expect(config.licenseKey).toBe('from-env');
    expect(config.admin.tokenExpiryDays).toBe(5);
  });
});

describe('resilience settings', () => {
  it("leave unset keys to the core's defaults", () => {
    const { config } = parse(base);
    const defaults = resolveResilienceOptions();
    expect(config.resilience).toEqual(defaults);
    expect(config.downstream.timeoutMs).toBe(defaults.deadlineMs);
  });

  it('read seconds into the milliseconds the core takes', () => {
    const { config } = parse({
      ...base,
      Gw__Breaker__Mode: 'ratio',
      Gw__Breaker__WindowSeconds: '60',
      Gw__Breaker__BreakSeconds: '1.5',
      Gw__Downstream__TimeoutMs: '2500',
    });
    expect(config.resilience.breaker).toMatchObject({ mode: 'ratio', windowMs: 60_000, breakMs: 1_500 });
    expect(config.resilience.deadlineMs).toBe(2_500);
    expect(config.downstream.timeoutMs).toBe(2_500);
  });

  it('name the key of each option the core refuses, with every other problem', () => {
    expect(
      problemsOf({
        ...base,
        Gw__Breaker__Mode: 'sometimes',
        Gw__Breaker__FailureThreshold: '0',
        Gw__Breaker__WindowSeconds: '-1',
        Gw__Downstream__Retries: 'many',
        Gw__Downstream__RetryMinDelayMs: '300',
        Gw__Downstream__TimeoutMs: '0',
        Gw__Admin__TokenExpiryDays: '0',
      }),
    ).toEqual([
      'Gw:Admin:TokenExpiryDays: must be positive',
      'Gw:Downstream:Retries: must be a number',
      'Gw:Breaker:Mode: must be "consecutive" or "ratio" (got "sometimes")',
      'Gw:Breaker:FailureThreshold: must be a whole number 1 or more (got 0)',
      'Gw:Breaker:WindowSeconds: must be a positive number',
      'Gw:Downstream:RetryMaxDelayMs: must be a whole number 300 or more (got 250)',
      'Gw:Downstream:TimeoutMs: must be a positive number',
    ]);
  });
});

describe('per-agent concurrency', () => {
  it('Gw:Mcp:MaxConcurrentCallsPerAgent defaults to 32, takes 0 (no limit), refuses a negative or fractional value', () => {
    expect(parse(base).config.mcp.maxConcurrentCallsPerAgent).toBe(32);
    expect(parse({ ...base, Gw__Mcp__MaxConcurrentCallsPerAgent: '0' }).config.mcp.maxConcurrentCallsPerAgent).toBe(0);
    expect(problemsOf({ ...base, Gw__Mcp__MaxConcurrentCallsPerAgent: '-1' })).toEqual([
      expect.stringContaining('Gw:Mcp:MaxConcurrentCallsPerAgent'),
    ]);
    expect(problemsOf({ ...base, Gw__Mcp__MaxConcurrentCallsPerAgent: '2.5' })).toEqual([
      expect.stringContaining('Gw:Mcp:MaxConcurrentCallsPerAgent'),
    ]);
  });
});

describe('resume bounds (issue 25, finding 2)', () => {
  it('Gw:Mcp:MaxListenStreamsPerAgent (10) and Gw:Mcp:MaxListenStreams (10,000) bound the listen streams; each positive, the first not above the second', () => {
    expect(parse(base).config.mcp).toMatchObject({ maxListenStreamsPerAgent: 10, maxListenStreams: 10_000 });
    expect(
      parse({ ...base, Gw__Mcp__MaxListenStreamsPerAgent: '3', Gw__Mcp__MaxListenStreams: '50' }).config.mcp,
    ).toMatchObject({ maxListenStreamsPerAgent: 3, maxListenStreams: 50 });
    expect(problemsOf({ ...base, Gw__Mcp__MaxListenStreamsPerAgent: '0' })).toEqual([
      expect.stringContaining('Gw:Mcp:MaxListenStreamsPerAgent'),
    ]);
    expect(problemsOf({ ...base, Gw__Mcp__MaxListenStreams: 'many' })).toEqual([
      expect.stringContaining('Gw:Mcp:MaxListenStreams'),
    ]);
    expect(problemsOf({ ...base, Gw__Mcp__MaxListenStreamsPerAgent: '20', Gw__Mcp__MaxListenStreams: '5' })).toEqual([
      expect.stringMatching(/Gw:Mcp:MaxListenStreamsPerAgent.*must not exceed Gw:Mcp:MaxListenStreams \(5\)/),
    ]);
  });

  it('Gw:Mcp:MaxResumes defaults to half of Gw:Http:MaxConnections and must stay below it; Gw:Mcp:MaxResumesPerAgent defaults to 8', () => {
    expect(parse(base).config.mcp).toMatchObject({ maxResumesPerAgent: 8, maxResumes: 512 });
    expect(parse({ ...base, Gw__Http__MaxConnections: '150' }).config.mcp.maxResumes).toBe(75);
    expect(
      parse({ ...base, Gw__Http__MaxConnections: '150', Gw__Mcp__MaxResumes: '149', Gw__Mcp__MaxResumesPerAgent: '2' })
        .config.mcp,
    ).toMatchObject({ maxResumes: 149, maxResumesPerAgent: 2 });
    expect(problemsOf({ ...base, Gw__Http__MaxConnections: '150', Gw__Mcp__MaxResumes: '150' })).toEqual([
      expect.stringContaining('Gw:Mcp:MaxResumes'),
    ]);
    expect(problemsOf({ ...base, Gw__Mcp__MaxResumesPerAgent: '0' })).toEqual([
      expect.stringContaining('Gw:Mcp:MaxResumesPerAgent'),
    ]);
  });
});

describe('list keys', () => {
  it('accept comma-separated values and JSON arrays alike', () => {
    const fromEnv = parse({ ...base, Gw__Http__AllowedOrigins: 'https://a.example, https://b.example' }).config.http;
    expect(fromEnv.allowedOrigins).toEqual(['https://a.example', 'https://b.example']);
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-config-'));
    const file = join(dir, 'gateway.json');
    writeFileSync(file, JSON.stringify({ Gw: { Http: { AllowedHosts: ['gw.example', 'gw.internal:8080'] } } }));
    expect(loadGatewayConfig(['--config', file], base).config.http.allowedHosts).toEqual([
      'gw.example',
      'gw.internal:8080',
    ]);
  });
});

describe('cache settings', () => {
  it('reads global and per-tool cache settings', () => {
    const { cache } = parse({
      ...base,
      Gw__Cache__Semantic: 'false',
      Gw__Cache__Tools__search_products__TtlSeconds: '60',
      Gw__Cache__Tools__get_customer__Enabled: 'false',
    }).config;
    expect(cache).toMatchObject({ enabled: true, semantic: false, similarityThreshold: 0.88, ttlMs: 300_000 });
    expect(cache.tools).toEqual({ search_products: { ttlMs: 60_000 }, get_customer: { enabled: false } });
  });

  it('names each bad per-tool setting', () => {
    expect(
      problemsOf({
        ...base,
        Gw__Cache__Tools__x__Color: 'red',
        Gw__Cache__Tools__y__TtlSeconds: '-5',
        Gw__Cache__Enabled: 'maybe',
      }),
    ).toEqual([
      'Gw:Cache:Enabled: must be true or false',
      'Gw:Cache:Tools:x:Color: unknown setting (Enabled, Semantic or TtlSeconds)',
      'Gw:Cache:Tools:y:TtlSeconds: must be a positive whole number',
    ]);
  });
});

describe('privacy settings', () => {
  it('reads Gw:Privacy keys and a rules file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-privacy-'));
    const file = join(dir, 'rules.json');
    writeFileSync(
      file,
      JSON.stringify({ fields: ['internalNote'], rules: [{ name: 'order-ref', pattern: 'ORD-[0-9]+' }] }),
    );
    const { privacy } = parse({ ...base, Gw__Privacy__Fields__0: 'loyaltyId', Gw__Privacy__RulesFile: file }).config;
    expect(privacy.fields).toEqual(['internalNote', 'loyaltyId']);
    expect(privacy.rules?.map((rule) => rule.name)).toEqual(['order-ref']);
  });

  it('refuses a bad pattern or an unknown detector with a line naming the key', () => {
    const problems = problemsOf({
      ...base,
      Gw__Privacy__Rules__0__Name: 'x',
      Gw__Privacy__Rules__0__Pattern: '([a-z]',
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^Gw:Privacy:Rules:0:Pattern: /);
    expect(problemsOf({ ...base, Gw__Privacy__DisabledDetectors__0: 'telepathy' })[0]).toMatch(
      /^Gw:Privacy:DisabledDetectors:0: /,
    );
  });
});

describe('search mode configuration (issue 28)', () => {
  it('is off by default, with a threshold of 64 and a lexical ranking', () => {
    expect(parse(base).config.catalog).toEqual({ search: 'off', searchThreshold: 64, searchSemanticWeight: 0 });
    expect(
      parse({
        ...base,
        Gw__Catalog__Search: 'auto',
        Gw__Catalog__SearchThreshold: '100',
        Gw__Catalog__SearchSemanticWeight: '0.7',
      }).config.catalog,
    ).toEqual({ search: 'auto', searchThreshold: 100, searchSemanticWeight: 0.7 });
  });

  it('names each key with a value it cannot take', () => {
    expect(
      problemsOf({
        ...base,
        Gw__Catalog__Search: 'yes',
        Gw__Catalog__SearchThreshold: '0',
        Gw__Catalog__SearchSemanticWeight: '2',
      }),
    ).toEqual([
      expect.stringContaining('Gw:Catalog:Search'),
      expect.stringContaining('Gw:Catalog:SearchThreshold'),
      expect.stringContaining('Gw:Catalog:SearchSemanticWeight'),
    ]);
  });
});
