import { resolveResilienceOptions } from '@tollgate/gateway-core';
import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway-config.js';
import { readEnvironment } from './sources.js';
import { configProblems } from './config-test-support.js';

const KEY = 'k'.repeat(32);
const common = { Gw__LicenseKey: 'lic', Gw__Jwt__SigningKey: KEY };
const single = { ...common, Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081' };
const named = {
  ...common,
  Gw__Downstreams__orders__BaseUrl: 'http://orders.internal:8080/api',
  Gw__Downstreams__orders__Prefix: 'orders',
  Gw__Downstreams__billing__BaseUrl: 'https://billing.internal',
};

const parse = (env: Record<string, string>) => parseGatewayConfig(readEnvironment(env)).config;

function problemsOf(env: Record<string, string>): string[] {
  return configProblems(() => parse(env));
}

describe('downstreams: the single-key form', () => {
  it('is one downstream named default, with no prefix and the gateway-wide settings', () => {
    const config = parse({
      ...single,
      Gw__Downstream__Headers__X_Api_Key: 'abc',
      Gw__Downstream__TimeoutMs: '2500',
      Gw__Breaker__FailureThreshold: '3',
    });
    expect(config.downstreams).toHaveLength(1);
    expect(config.downstreams[0]).toEqual({
      name: 'default',
      baseUrl: 'http://127.0.0.1:8081',
      prefix: '',
      headers: { X_Api_Key: 'abc' },
      maxResponseBytes: 10 * 1024 * 1024,
      resilience: config.resilience,
      audience: 'http://127.0.0.1:8081',
    });
    expect(config.downstreams[0]!.resilience).toMatchObject({ deadlineMs: 2500, breaker: { failureThreshold: 3 } });
  });

  it('takes its assertion audience from Gw:Downstream:Audience', () => {
    expect(parse({ ...single, Gw__Downstream__Audience: 'urn:shop' }).downstreams[0]!.audience).toBe('urn:shop');
  });

  it('is required when no downstream is named, and defaults to the sample downstream in development mode only', () => {
    expect(problemsOf(common)).toEqual([
      'Gw:ToolRegistry:DownstreamBaseUrl: is required: the downstream API (or name several under Gw:Downstreams:<name>:BaseUrl)',
    ]);
    expect(parse({ ...common, NODE_ENV: 'development' }).downstreams.map((d) => [d.name, d.baseUrl])).toEqual([
      ['default', 'http://127.0.0.1:8081'],
    ]);
    expect(parse({ ...named, NODE_ENV: 'development' }).downstreams.map((d) => d.name)).toEqual(['orders', 'billing']);
  });
});

describe('downstreams: Gw:Downstreams:<name>:*', () => {
  it('reads each named downstream, in order, with its own URL, prefix and audience', () => {
    const config = parse(named);
    expect(
      config.downstreams.map(({ name, baseUrl, prefix, audience }) => ({ name, baseUrl, prefix, audience })),
    ).toEqual([
      {
        name: 'orders',
        baseUrl: 'http://orders.internal:8080/api',
        prefix: 'orders',
        audience: 'http://orders.internal:8080/api',
      },
      { name: 'billing', baseUrl: 'https://billing.internal', prefix: '', audience: 'https://billing.internal' },
    ]);
    expect(config.downstream.baseUrl).toBe('http://orders.internal:8080/api');
  });

  it('gives each its own headers, timeout, retries and breaker, else the gateway-wide values, else the core defaults', () => {
    const config = parse({
      ...named,
      Gw__Downstream__Headers__Authorization: 'Bearer gateway-wide',
      Gw__Downstream__TimeoutMs: '4000',
      Gw__Downstream__MaxResponseBytes: '2048',
      Gw__Breaker__Mode: 'ratio',
      Gw__Breaker__BreakSeconds: '10',
      Gw__Downstreams__orders__Headers__X_Api_Key: 'orders-key',
      Gw__Downstreams__orders__TimeoutMs: '1500',
      Gw__Downstreams__orders__Retries: '0',
      Gw__Downstreams__orders__RetryMinDelayMs: '5',
      Gw__Downstreams__orders__RetryMaxDelayMs: '20',
      Gw__Downstreams__orders__MaxResponseBytes: '4096',
      Gw__Downstreams__orders__Breaker__Mode: 'consecutive',
      Gw__Downstreams__orders__Breaker__FailureThreshold: '2',
      Gw__Downstreams__orders__Breaker__BreakSeconds: '1.5',
      Gw__Downstreams__orders__Audience: 'urn:orders',
    });
    const [orders, billing] = config.downstreams;
    expect(orders).toMatchObject({
      headers: { X_Api_Key: 'orders-key' },
      maxResponseBytes: 4096,
      audience: 'urn:orders',
    });
    expect(orders!.resilience).toEqual({
      breaker: { ...resolveResilienceOptions().breaker, mode: 'consecutive', failureThreshold: 2, breakMs: 1500 },
      retry: { retries: 0, minDelayMs: 5, maxDelayMs: 20 },
      deadlineMs: 1500,
      connections: 128,
    });
    // A downstream's credentials never go to another: Gw:Downstream:Headers are the single-key form's only.
    expect(billing!.headers).toEqual({});
    expect(billing).toMatchObject({ maxResponseBytes: 2048 });
    expect(billing!.resilience).toMatchObject({
      breaker: { mode: 'ratio', breakMs: 10_000 },
      retry: resolveResilienceOptions().retry,
      deadlineMs: 4000,
    });
  });

  it('reads names case-insensitively, like every key, in lower case', () => {
    const config = parse({
      ...common,
      GW__DOWNSTREAMS__ORDERS__BASEURL: 'http://o',
      Gw__Downstreams__Orders__Prefix: 'o',
    });
    expect(config.downstreams.map(({ name, prefix }) => [name, prefix])).toEqual([['orders', 'o']]);
  });

  it('reads a JSON-file section the same way', () => {
    const { config } = parseGatewayConfig(
      new Map([
        ['gw:licensekey', { key: 'Gw:LicenseKey', value: 'lic' }],
        ['gw:jwt:signingkey', { key: 'Gw:Jwt:SigningKey', value: KEY }],
        ['gw:downstreams:catalog:baseurl', { key: 'Gw:Downstreams:catalog:BaseUrl', value: 'http://catalog' }],
        ['gw:downstreams:catalog:headers:x-key', { key: 'Gw:Downstreams:catalog:Headers:X-Key', value: 'k' }],
      ]),
    );
    expect(config.downstreams).toMatchObject([
      { name: 'catalog', baseUrl: 'http://catalog', headers: { 'X-Key': 'k' } },
    ]);
  });

  it('with the single-key form too: that one is one more downstream, named default, listed first', () => {
    const config = parse({ ...single, ...named });
    expect(config.downstreams.map((d) => d.name)).toEqual(['default', 'orders', 'billing']);
    expect(problemsOf({ ...single, Gw__Downstreams__default__BaseUrl: 'http://other' })).toEqual([
      'Gw:Downstreams:default: is the name of the downstream set by Gw:ToolRegistry:DownstreamBaseUrl; choose another name, or drop that key',
    ]);
  });

  it('refuses bad names, values and unknown settings, each under its own key, all at once', () => {
    const problems = problemsOf({
      ...common,
      Gw__Downstreams__Bad_Name__BaseUrl: 'http://x',
      'Gw__Downstreams__-edge__BaseUrl': 'http://x',
      Gw__Downstreams__orders__BaseUrl: 'ftp://orders',
      Gw__Downstreams__orders__Prefix: 'orders.v1',
      Gw__Downstreams__orders__TimeoutMs: 'soon',
      Gw__Downstreams__orders__Retries: '5',
      Gw__Downstreams__orders__Breaker__Mode: 'sometimes',
      Gw__Downstreams__orders__Breaker__BreakSeconds: '0',
      Gw__Downstreams__orders__Headers__Host: 'evil',
      Gw__Downstreams__orders__Colour: 'blue',
      Gw__Downstreams__billing__Prefix: 'b',
      Gw__Downstreams__lonely: 'x',
    });
    expect(problems).toEqual([
      'Gw:Downstreams:Bad_Name: a downstream name must be 1-32 lower-case letters, digits or -, starting and ending with a letter or digit',
      'Gw:Downstreams:-edge: a downstream name must be 1-32 lower-case letters, digits or -, starting and ending with a letter or digit',
      expect.stringMatching(/^Gw:Downstreams:lonely: expected Gw:Downstreams:<name>:<Setting>/),
      'Gw:Downstreams:orders:TimeoutMs: must be a number',
      expect.stringMatching(/^Gw:Downstreams:orders:Colour: unknown setting \(BaseUrl, Prefix, /),
      'Gw:Downstreams:orders:BaseUrl: must be an http(s) URL',
      'Gw:Downstreams:orders:Prefix: must be 1-64 characters of A-Z, a-z, 0-9, _ or -',
      expect.stringMatching(/^Gw:Downstreams:orders:Headers:Host: /),
      expect.stringMatching(/^Gw:Downstreams:orders:Breaker:Mode: must be "consecutive" or "ratio"/),
      'Gw:Downstreams:orders:Breaker:BreakSeconds: must be a positive number',
      expect.stringMatching(/^Gw:Downstreams:orders:Retries: must be a whole number from 0 to 2/),
      'Gw:Downstreams:billing:BaseUrl: is required: the address of this downstream API',
    ]);
  });

  it('reports a gateway-wide value the core refuses once, under its own key', () => {
    expect(problemsOf({ ...named, Gw__Breaker__FailureThreshold: '0' })).toEqual([
      expect.stringMatching(/^Gw:Breaker:FailureThreshold: must be a whole number 1 or more/),
    ]);
  });
});

describe('downstreams: an OpenAPI document as the source of tools', () => {
  it('reads OpenApi and the Operations selectors', () => {
    const config = parse({
      ...named,
      Gw__Downstreams__orders__OpenApi: 'https://orders.internal/openapi.yaml',
      Gw__Downstreams__orders__Operations__Include: 'tag:pulls, GET /repos/*',
      Gw__Downstreams__orders__Operations__Exclude: 'pulls/list-files',
      Gw__Downstreams__orders__Operations__AllowWrite: 'issues/create',
    });
    const [orders, billing] = config.downstreams;
    expect(orders!.openApi).toMatchObject({
      location: 'https://orders.internal/openapi.yaml',
      include: [
        { kind: 'tag', tag: 'pulls' },
        { kind: 'route', method: 'GET' },
      ],
      exclude: [{ kind: 'operationId', operationId: 'pulls/list-files' }],
      allowWrite: [{ kind: 'operationId', operationId: 'issues/create' }],
    });
    expect(billing!.openApi).toBeUndefined();
    expect(
      parse({ ...named, Gw__Downstreams__billing__OpenApi: './specs/billing.json' }).downstreams[1]!.openApi,
    ).toEqual({ location: './specs/billing.json', include: [], exclude: [], allowWrite: [] });
  });

  it('refuses selectors it cannot read, Operations without OpenApi, and a location of another scheme', () => {
    expect(
      problemsOf({
        ...named,
        Gw__Downstreams__orders__OpenApi: 'ftp://files.internal/api.json',
        Gw__Downstreams__orders__Operations__Include: 'tag:',
        Gw__Downstreams__billing__Operations__AllowWrite: 'issues create now',
      }),
    ).toEqual([
      'Gw:Downstreams:orders:Operations:Include: "tag:": tag: needs a tag name; selectors are operationIds, tag:<tag> or "METHOD /path" with * for any text',
      'Gw:Downstreams:orders:OpenApi: must be an http(s) URL or a file path',
      "Gw:Downstreams:billing:Operations:AllowWrite: applies only with OpenApi (the downstream's OpenAPI document)",
      'Gw:Downstreams:billing:Operations:AllowWrite: "issues create now": expected an operationId, tag:<tag> or "METHOD /path" (e.g. "GET /repos/*"); selectors are operationIds, tag:<tag> or "METHOD /path" with * for any text',
    ]);
  });
});
