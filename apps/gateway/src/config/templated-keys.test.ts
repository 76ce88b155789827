import { describe, expect, it } from 'vitest';
import { configProblems } from './config-test-support.js';
import { parseGatewayConfig } from './gateway-config.js';
import { readEnvironment } from './sources.js';

/**
 * The keys with a part users name, read by their sections' parsers from
 * their declarations (issue 31, code item 4): what they parse to and every
 * problem's words, pinned as the hand-written parsers gave them before
 * (these snapshots were written by the parsers of 3f295c2).
 */
const base = {
  Gw__LicenseKey: 'lic-123',
  Gw__Jwt__SigningKey: 'k'.repeat(32),
};

function parse(env: Record<string, string>) {
  return parseGatewayConfig(readEnvironment({ ...base, ...env })).config;
}

function problemsOf(env: Record<string, string>): string[] {
  return configProblems(() => parseGatewayConfig(readEnvironment({ ...base, ...env })));
}

describe('keys with names you choose', () => {
  it('read named downstreams, their headers, overrides and OpenAPI import settings', () => {
    const { downstreams } = parse({
      Gw__Breaker__FailureThreshold: '7',
      Gw__Downstreams__orders__BaseUrl: ' http://127.0.0.1:9001 ',
      Gw__Downstreams__orders__PREFIX: 'orders',
      Gw__Downstreams__orders__Headers__X_Api_Key: ' key ',
      Gw__Downstreams__orders__TimeoutMs: '2500.5',
      Gw__Downstreams__orders__Breaker__Mode: 'ratio',
      Gw__Downstreams__orders__Breaker__WindowSeconds: '12',
      Gw__Downstreams__Docs__BaseUrl: 'https://docs.example.com',
      Gw__Downstreams__docs__OpenApi: './spec.yaml',
      Gw__Downstreams__docs__Operations__Include: 'tag:pulls, GET /repos/*',
      Gw__Downstreams__docs__Operations__AllowWrite: 'pulls/create',
      Gw__Downstreams__docs__MaxResponseBytes: '2048',
      Gw__Downstreams__docs__Audience: 'docs-api',
    });
    expect(downstreams).toMatchInlineSnapshot(`
      [
        {
          "audience": "http://127.0.0.1:9001",
          "baseUrl": "http://127.0.0.1:9001",
          "headers": {
            "X_Api_Key": " key ",
          },
          "maxResponseBytes": 10485760,
          "name": "orders",
          "prefix": "orders",
          "resilience": {
            "breaker": {
              "breakMs": 30000,
              "failureRatio": 0.5,
              "failureThreshold": 7,
              "minimumCalls": 10,
              "mode": "ratio",
              "windowMs": 12000,
            },
            "connections": 128,
            "deadlineMs": 2500.5,
            "retry": {
              "maxDelayMs": 250,
              "minDelayMs": 50,
              "retries": 2,
            },
          },
        },
        {
          "audience": "docs-api",
          "baseUrl": "https://docs.example.com",
          "headers": {},
          "maxResponseBytes": 2048,
          "name": "docs",
          "openApi": {
            "allowWrite": [
              {
                "kind": "operationId",
                "operationId": "pulls/create",
              },
            ],
            "exclude": [],
            "include": [
              {
                "kind": "tag",
                "tag": "pulls",
              },
              {
                "kind": "route",
                "method": "GET",
                "path": /\\^\\\\/repos\\\\/\\.\\*\\$/,
              },
            ],
            "location": "./spec.yaml",
          },
          "prefix": "",
          "resilience": {
            "breaker": {
              "breakMs": 30000,
              "failureRatio": 0.5,
              "failureThreshold": 7,
              "minimumCalls": 10,
              "mode": "consecutive",
              "windowMs": 30000,
            },
            "connections": 128,
            "deadlineMs": 10000,
            "retry": {
              "maxDelayMs": 250,
              "minDelayMs": 50,
              "retries": 2,
            },
          },
        },
      ]
    `);
  });

  it('refuse bad named downstream settings with the same words', () => {
    expect(
      problemsOf({
        Gw__Downstreams__Bad_Name__BaseUrl: 'http://x',
        Gw__Downstreams__lonely: 'x',
        Gw__Downstreams__orders__BaseUrl: 'ftp://x',
        Gw__Downstreams__orders__TimeoutMs: 'soon',
        Gw__Downstreams__orders__Colour: 'red',
        Gw__Downstreams__orders__Headers__Host: 'evil',
        Gw__Downstreams__orders__Prefix: 'a.b',
        Gw__Downstreams__orders__Audience: 'a b',
        Gw__Downstreams__orders__MaxResponseBytes: '1.5',
        Gw__Downstreams__orders__Operations__Include: 'tag:',
        Gw__Downstreams__orders__Breaker__Mode: 'sometimes',
        Gw__Downstreams__orders__Retries: '7',
        Gw__Downstreams__docs__OpenApi: 'ftp://spec',
        Gw__Downstreams__docs__Breaker__WindowSeconds: '-1',
        Gw__Downstreams__docs__BaseUrl__Extra: 'x',
        Gw__Downstreams__docs__Headers__: 'x',
      }),
    ).toMatchInlineSnapshot(`
      [
        "Gw:Downstreams:Bad_Name: a downstream name must be 1-32 lower-case letters, digits or -, starting and ending with a letter or digit",
        "Gw:Downstreams:lonely: expected Gw:Downstreams:<name>:<Setting> (BaseUrl, Prefix, Headers:<Name>, TimeoutMs, ...)",
        "Gw:Downstreams:orders:TimeoutMs: must be a number",
        "Gw:Downstreams:orders:Colour: unknown setting (BaseUrl, Prefix, Headers:<Name>, TimeoutMs, Retries, RetryMinDelayMs, RetryMaxDelayMs, MaxResponseBytes, Audience, OpenApi, Operations:<Include|Exclude|AllowWrite> or Breaker:<Setting>)",
        "Gw:Downstreams:orders:BaseUrl: must be an http(s) URL",
        "Gw:Downstreams:orders:Prefix: must be 1-64 characters of A-Z, a-z, 0-9, _ or -",
        "Gw:Downstreams:orders:Audience: must be a URL or a name: up to 256 printable characters, no spaces",
        "Gw:Downstreams:orders:MaxResponseBytes: must be a positive whole number",
        "Gw:Downstreams:orders:Headers:Host: is set by the HTTP client and cannot be configured",
        "Gw:Downstreams:orders:Breaker:Mode: must be "consecutive" or "ratio" (got "sometimes")",
        "Gw:Downstreams:orders:Retries: must be a whole number from 0 to 2 (got 7)",
        "Gw:Downstreams:orders:Operations:Include: applies only with OpenApi (the downstream's OpenAPI document)",
        "Gw:Downstreams:orders:Operations:Include: "tag:": tag: needs a tag name; selectors are operationIds, tag:<tag> or "METHOD /path" with * for any text",
        "Gw:Downstreams:docs:BaseUrl:Extra: unknown setting (BaseUrl, Prefix, Headers:<Name>, TimeoutMs, Retries, RetryMinDelayMs, RetryMaxDelayMs, MaxResponseBytes, Audience, OpenApi, Operations:<Include|Exclude|AllowWrite> or Breaker:<Setting>)",
        "Gw:Downstreams:docs:BaseUrl: is required: the address of this downstream API",
        "Gw:Downstreams:docs:Headers:: not a valid header name",
        "Gw:Downstreams:docs:Breaker:WindowSeconds: must be a positive number",
        "Gw:Downstreams:docs:OpenApi: must be an http(s) URL or a file path",
      ]
    `);
  });

  it('refuse bad gateway-wide downstream headers with the same words', () => {
    expect(
      problemsOf({ Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081', Gw__Downstream__Headers__Host: 'x' }),
    ).toMatchInlineSnapshot(`
      [
        "Gw:Downstream:Headers:Host: is set by the HTTP client and cannot be configured",
      ]
    `);
  });

  it('read trusted issuers', () => {
    const { oauth } = parse({
      Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081',
      Gw__OAuth__Resource: 'https://gw.example.com/mcp',
      Gw__OAuth__Issuers__1__Issuer: 'https://b.example.com',
      Gw__OAuth__Issuers__1__Provision__Enabled: 'TRUE',
      Gw__OAuth__Issuers__1__Provision__AllowedTools: 'a, b',
      Gw__OAuth__Issuers__1__Provision__Scopes: 'orders:read',
      Gw__OAuth__Issuers__1__Algorithms: 'ES256,EdDSA',
      Gw__OAuth__ISSUERS__0__issuer: 'https://a.example.com',
      Gw__OAuth__Issuers__0__JwksUrl: 'https://a.example.com/keys',
      Gw__OAuth__Issuers__0__Audience: 'api://gw',
      Gw__OAuth__Issuers__0__ClockToleranceSeconds: '5',
      Gw__OAuth__Issuers__0__SubjectClaim: 'azp',
      Gw__OAuth__Issuers__0__JwksCooldownSeconds: '',
      Gw__OAuth__Issuers__0__Provision__Enabled: 'false',
    });
    expect(oauth).toMatchInlineSnapshot(`
      {
        "issuers": [
          {
            "algorithms": [
              "RS256",
              "PS256",
              "ES256",
              "EdDSA",
            ],
            "audience": "api://gw",
            "clockToleranceSeconds": 5,
            "issuer": "https://a.example.com",
            "jwksCooldownSeconds": 0,
            "jwksMaxStaleSeconds": 21600,
            "jwksUrl": "https://a.example.com/keys",
            "subjectClaim": "azp",
          },
          {
            "algorithms": [
              "ES256",
              "EdDSA",
            ],
            "audience": "https://gw.example.com/mcp",
            "clockToleranceSeconds": 30,
            "issuer": "https://b.example.com",
            "jwksCooldownSeconds": 10,
            "jwksMaxStaleSeconds": 21600,
            "provision": {
              "allowedTools": [
                "a",
                "b",
              ],
              "dailyTokenBudget": 100000,
              "scopes": [
                "orders:read",
              ],
            },
            "subjectClaim": "sub",
          },
        ],
        "resource": "https://gw.example.com/mcp",
        "resourceMetadataUrl": "https://gw.example.com/.well-known/oauth-protected-resource/mcp",
      }
    `);
  });

  it('refuse bad trusted issuer settings with the same words', () => {
    const issuers = {
      Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081',
      Gw__OAuth__Other: 'x',
      Gw__OAuth__Issuers__x: 'y',
      Gw__OAuth__Issuers__0__Issuer: 'https://sso.example.com',
      Gw__OAuth__Issuers__0__ClockToleranceSeconds: '301',
      Gw__OAuth__Issuers__0__JwksCooldownSeconds: 'x',
      Gw__OAuth__Issuers__0__JwksMaxStaleSeconds: '-1',
      Gw__OAuth__Issuers__0__Provision__Enabled: 'yes',
      Gw__OAuth__Issuers__0__JwksUrl: 'ftp://keys',
      Gw__OAuth__Issuers__1__Issuer: 'https://b.example.com/a b',
      Gw__OAuth__Issuers__1__Provision__Enabled: 'TRUE',
      Gw__OAuth__Issuers__1__Provision__DailyTokenBudget: '0',
      Gw__OAuth__Issuers__1__Provision__Scopes: 'bad scope!',
      Gw__OAuth__Issuers__1__SubjectClaim: 'a b',
      Gw__OAuth__Issuers__1__Algorithms: 'HS256',
      Gw__OAuth__Issuers__1__Bogus: 'x',
      Gw__OAuth__Issuers__2__JwksUrl: 'https://c.example.com/keys',
      Gw__OAuth__Issuers__3__Issuer: 'https://sso.example.com',
    };
    expect(problemsOf({ ...issuers, Gw__OAuth__Resource: 'https://gw.example.com/mcp' })).toMatchInlineSnapshot(`
      [
        "Gw:OAuth:Issuers:x: expected Gw:OAuth:Issuers:<n>:<setting>",
        "Gw:OAuth:Other: unknown setting (Resource, Issuers:<n>:...)",
        "Gw:OAuth:Issuers:0:JwksUrl: must be https (plain http only on loopback)",
        "Gw:OAuth:Issuers:0:ClockToleranceSeconds: must be a number of seconds from 0 to 300",
        "Gw:OAuth:Issuers:0:JwksCooldownSeconds: must be a number of seconds from 0 to 3600",
        "Gw:OAuth:Issuers:0:JwksMaxStaleSeconds: must be a number of seconds from 0 to 604800",
        "Gw:OAuth:Issuers:0:Provision:Enabled: must be true or false",
        "Gw:OAuth:Issuers:1:Bogus: unknown setting",
        "Gw:OAuth:Issuers:1:Issuer: must not contain white space",
        "Gw:OAuth:Issuers:1:SubjectClaim: must be a claim name such as sub, client_id or azp",
        "Gw:OAuth:Issuers:1:Algorithms: must list some of RS256, PS256, ES256, EdDSA (asymmetric only; got HS256)",
        "Gw:OAuth:Issuers:1:Provision:DailyTokenBudget: must be a positive whole number",
        "Gw:OAuth:Issuers:1:Provision:Scopes: bad scope!: must be an OAuth scope token: printable ASCII without space, " or \\ (RFC 6749 3.3)",
        "Gw:OAuth:Issuers:2:Issuer: is required: the exact \`iss\` of the tokens",
        "Gw:OAuth:Issuers:3:Issuer: https://sso.example.com is configured twice",
      ]
    `);
    expect(problemsOf({ ...issuers, Gw__OAuth__Resource: 'http://gw.example.com/mcp' })).toMatchInlineSnapshot(`
      [
        "Gw:OAuth:Issuers:x: expected Gw:OAuth:Issuers:<n>:<setting>",
        "Gw:OAuth:Other: unknown setting (Resource, Issuers:<n>:...)",
        "Gw:OAuth:Resource: must be https (plain http only on loopback)",
      ]
    `);
  });

  it('read the privacy settings', () => {
    const { privacy } = parse({
      Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081',
      Gw__Privacy__Enabled: 'FALSE',
      Gw__Privacy__Fields__1: 'loyaltyNumber',
      Gw__Privacy__Fields__0: ' memberId ',
      Gw__Privacy__DisabledDetectors__0: 'ipv4',
      Gw__Privacy__Rules__0__Name: 'order-ref',
      Gw__Privacy__Rules__0__Pattern: 'ORD-[0-9]+',
      Gw__Privacy__Rules__0__FLAGS: 'm',
      Gw__Privacy__Rules__0__Replacement: '[order]',
      Gw__Privacy__Tools__get_order__Enabled: 'true',
      Gw__Privacy__Tools__get_order__Fields__0: 'note',
    });
    expect(privacy).toMatchInlineSnapshot(`
      {
        "disabledDetectors": [
          "ipv4",
        ],
        "enabled": false,
        "fields": [
          "memberId",
          "loyaltyNumber",
        ],
        "rules": [
          {
            "flags": "m",
            "name": "order-ref",
            "pattern": "ORD-[0-9]+",
            "replacement": "[order]",
          },
        ],
        "tools": {
          "get_order": {
            "enabled": true,
            "fields": [
              "note",
            ],
          },
        },
      }
    `);
  });

  it('refuse bad privacy settings with the same words', () => {
    const first = (env: Record<string, string>) =>
      problemsOf({ Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081', ...env });
    const cases: Record<string, string>[] = [
      { Gw__Privacy__Rules__0__Colour: 'x' },
      { Gw__Privacy__Tools__t__Colour: 'x' },
      { Gw__Privacy__Tools__t__Enabled__x: 'x' },
      { Gw__Privacy__Colour: 'x' },
      { Gw__Privacy__Fields__0__x: 'x' },
      { Gw__Privacy__Fields__x: 'x' },
      { Gw__Privacy__Fields__: 'x' },
      { Gw__Privacy__Rules____Pattern: 'x' },
      { Gw__Privacy__Tools____Enabled: 'true' },
      { Gw__Privacy__RulesFile: ' ' },
      { Gw__Privacy__Fields__1: 'a' },
      { Gw__Privacy__Enabled: 'maybe' },
      { Gw__Privacy__Rules__0__Pattern: '(' },
      { Gw__Privacy__Tools__t__DisabledDetectors__0: 'nope' },
    ];
    expect(cases.map(first)).toMatchInlineSnapshot(`
      [
        [
          "Gw:Privacy:Rules:0:Colour: is not a rule setting (expected Name, Pattern, Flags or Replacement)",
        ],
        [
          "Gw:Privacy:Tools:t:Colour: is not a tool privacy setting (expected Enabled, Fields:<n> or DisabledDetectors:<n>)",
        ],
        [
          "Gw:Privacy:Tools:t:Enabled:x: is not a tool privacy setting (expected Enabled, Fields:<n> or DisabledDetectors:<n>)",
        ],
        [
          "Gw:Privacy:Colour: is not a privacy setting (expected Enabled, RulesFile, Fields:<n>, DisabledDetectors:<n>, Rules:<n>:Name|Pattern|Flags|Replacement, or Tools:<tool>:Enabled|Fields:<n>|DisabledDetectors:<n>)",
        ],
        [
          "Gw:Privacy:Fields:0:x: is not a privacy setting (expected Enabled, RulesFile, Fields:<n>, DisabledDetectors:<n>, Rules:<n>:Name|Pattern|Flags|Replacement, or Tools:<tool>:Enabled|Fields:<n>|DisabledDetectors:<n>)",
        ],
        [
          "Gw:Privacy:Fields:x: list index must be a whole number (0, 1, 2 …)",
        ],
        [
          "Gw:Privacy:Fields:: list index must be a whole number (0, 1, 2 …)",
        ],
        [
          "Gw:Privacy:Rules::Pattern: list index must be a whole number (0, 1, 2 …)",
        ],
        [
          "Gw:Privacy:Tools: Invalid key in record",
        ],
        [
          "Gw:Privacy:RulesFile: must be a file path",
        ],
        [
          "Gw:Privacy:Fields:0: is missing: list indexes must count up from 0 without gaps",
        ],
        [
          "Gw:Privacy:Enabled: must be true or false",
        ],
        [
          "Gw:Privacy:Rules:0:Name: is required",
        ],
        [
          "Gw:Privacy:Tools:t:DisabledDetectors:0: is not a detector (known: email, phone, card, ssn, iban, ipv4, ipv6, jwt, api-key, bearer, credential)",
        ],
      ]
    `);
  });
});
