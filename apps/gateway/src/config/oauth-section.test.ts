import { ConfigError, type ConfigProblem } from '@tollgate/gateway-core/errors';
import { EXTERNAL_ALGORITHMS } from '@tollgate/gateway-core/internal';
import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway-config.js';
import { metadataUrlOf, oauthConfigFromSection, type OAuthConfig } from './oauth-section.js';
import { readEnvironment } from './sources.js';

const RESOURCE = 'https://gw.example.com/mcp';
const KEYCLOAK = 'https://sso.example.com/realms/agents';

function parse(
  entries: Record<string, string>,
  developmentResource?: string,
): { config: OAuthConfig | null; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  return { config: oauthConfigFromSection(entries, problems, developmentResource), problems };
}

/** The keys of the problems found, as `Gw:OAuth:...`; matched case-insensitively, as keys are. */
function problemPaths(entries: Record<string, string>, developmentResource?: string): string[] {
  return parse(entries, developmentResource).problems.map((problem) => problem.path.toLowerCase());
}

describe('oauthConfigFromSection', () => {
  it('reads a fully configured issuer', () => {
    const { config, problems } = parse({
      Resource: RESOURCE,
      'Issuers:0:Issuer': KEYCLOAK,
      'Issuers:0:JwksUrl': `${KEYCLOAK}/protocol/openid-connect/certs`,
      'Issuers:0:Audience': 'tollgate-gateway',
      'Issuers:0:Algorithms': 'ES256, PS256',
      'Issuers:0:ClockToleranceSeconds': '5',
      'Issuers:0:SubjectClaim': 'azp',
      'Issuers:0:JwksCooldownSeconds': '60',
      'Issuers:0:JwksMaxStaleSeconds': '3600',
      'Issuers:0:Provision:Enabled': 'true',
      'Issuers:0:Provision:DailyTokenBudget': '20000',
      'Issuers:0:Provision:AllowedTools': 'getCustomer, createOrder',
      'Issuers:0:Provision:Scopes': 'orders:read,orders:write',
    });
    expect(problems).toEqual([]);
    expect(config).toEqual({
      resource: RESOURCE,
      resourceMetadataUrl: 'https://gw.example.com/.well-known/oauth-protected-resource/mcp',
      issuers: [
        {
          issuer: KEYCLOAK,
          jwksUrl: `${KEYCLOAK}/protocol/openid-connect/certs`,
          audience: 'tollgate-gateway',
          algorithms: ['ES256', 'PS256'],
          clockToleranceSeconds: 5,
          subjectClaim: 'azp',
          jwksCooldownSeconds: 60,
          jwksMaxStaleSeconds: 3600,
          provision: {
            dailyTokenBudget: 20000,
            allowedTools: ['getCustomer', 'createOrder'],
            scopes: ['orders:read', 'orders:write'],
          },
        },
      ],
    });
  });

  it('fills in the defaults: audience = the resource, every asymmetric algorithm, 30 s tolerance, 10 s cooldown, keys kept 6 h while the issuer is down, sub, no provisioning', () => {
    const { config, problems } = parse({ Resource: RESOURCE, 'Issuers:0:Issuer': KEYCLOAK });
    expect(problems).toEqual([]);
    expect(config?.issuers).toEqual([
      {
        issuer: KEYCLOAK,
        audience: RESOURCE,
        algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
        clockToleranceSeconds: 30,
        jwksCooldownSeconds: 10,
        jwksMaxStaleSeconds: 21600,
        subjectClaim: 'sub',
      },
    ]);
    expect([...config!.issuers[0]!.algorithms!].sort()).toEqual([...EXTERNAL_ALGORITHMS].sort());
  });

  it('provisions with the default template when only enabled, and not when disabled', () => {
    expect(
      parse({ Resource: RESOURCE, 'Issuers:0:Issuer': KEYCLOAK, 'Issuers:0:Provision:Enabled': 'TRUE' }).config
        ?.issuers[0]?.provision,
    ).toEqual({
      dailyTokenBudget: 100_000,
      allowedTools: null,
      scopes: [],
    });
    const disabled = parse({
      Resource: RESOURCE,
      'Issuers:0:Issuer': KEYCLOAK,
      'Issuers:0:Provision:Enabled': 'false',
      'Issuers:0:Provision:Scopes': 'a',
    });
    expect(disabled.problems).toEqual([]);
    expect(disabled.config?.issuers[0]).not.toHaveProperty('provision');
  });

  // Issue 25, finding 9: the template's scopes are judged by the rule every scope is.
  it('refuses a template scope that is not an RFC 6749 scope token, naming the key', () => {
    const { problems } = parse({
      Resource: RESOURCE,
      'Issuers:0:Issuer': KEYCLOAK,
      'Issuers:0:Provision:Enabled': 'true',
      'Issuers:0:Provision:Scopes': 'orders:read, say"hi", back\\slash, café',
    });
    expect(problems).toEqual([
      {
        path: 'Gw:OAuth:Issuers:0:Provision:Scopes',
        message: expect.stringMatching(/^say"hi": must be an OAuth scope token/),
      },
      {
        path: 'Gw:OAuth:Issuers:0:Provision:Scopes',
        message: expect.stringMatching(/^back\\slash: must be an OAuth scope token/),
      },
      {
        path: 'Gw:OAuth:Issuers:0:Provision:Scopes',
        message: expect.stringMatching(/^café: must be an OAuth scope token/),
      },
    ]);
  });

  it('reads keys whatever their case, and issuers in numeric order', () => {
    const { config, problems } = parse({
      resource: RESOURCE,
      'ISSUERS:10:ISSUER': 'https://ten.example.com',
      'issuers:2:issuer': 'https://two.example.com',
      'Issuers:2:subjectclaim': 'client_id',
    });
    expect(problems).toEqual([]);
    expect(config?.issuers.map((issuer) => [issuer.issuer, issuer.subjectClaim])).toEqual([
      ['https://two.example.com', 'client_id'],
      ['https://ten.example.com', 'sub'],
    ]);
  });

  it('is off (null) without issuers, even with a resource', () => {
    expect(parse({})).toEqual({ config: null, problems: [] });
    expect(parse({ Resource: RESOURCE })).toEqual({ config: null, problems: [] });
  });

  it('requires the resource outside development, and defaults it in development', () => {
    const missing = parse({ 'Issuers:0:Issuer': KEYCLOAK });
    expect(missing.config).toBeNull();
    expect(missing.problems).toEqual([{ path: 'Gw:OAuth:Resource', message: expect.stringMatching(/^is required/) }]);
    const development = parse({ 'Issuers:0:Issuer': KEYCLOAK }, 'http://127.0.0.1:8080/mcp');
    expect(development.problems).toEqual([]);
    expect(development.config).toMatchObject({
      resource: 'http://127.0.0.1:8080/mcp',
      resourceMetadataUrl: 'http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp',
    });
    expect(development.config?.issuers[0]?.audience).toBe('http://127.0.0.1:8080/mcp');
    // A resource set in development wins over the default.
    expect(
      parse({ Resource: RESOURCE, 'Issuers:0:Issuer': KEYCLOAK }, 'http://127.0.0.1:8080/mcp').config?.resource,
    ).toBe(RESOURCE);
  });

  it('refuses a resource that is no URL, or carries a query or fragment', () => {
    expect(problemPaths({ Resource: 'gw.example.com/mcp', 'Issuers:0:Issuer': KEYCLOAK })).toEqual([
      'gw:oauth:resource',
    ]);
    expect(problemPaths({ Resource: `${RESOURCE}?tenant=1`, 'Issuers:0:Issuer': KEYCLOAK })).toEqual([
      'gw:oauth:resource',
    ]);
    expect(problemPaths({ Resource: `${RESOURCE}#x`, 'Issuers:0:Issuer': KEYCLOAK })).toEqual(['gw:oauth:resource']);
  });

  it('accepts plain http only on loopback, for the issuer, its key set and the resource', () => {
    expect(problemPaths({ Resource: RESOURCE, 'Issuers:0:Issuer': 'http://sso.example.com/realms/agents' })).toEqual([
      'gw:oauth:issuers:0:issuer',
    ]);
    expect(
      problemPaths({
        Resource: RESOURCE,
        'Issuers:0:Issuer': KEYCLOAK,
        'Issuers:0:JwksUrl': 'http://sso.example.com/certs',
      }),
    ).toEqual(['gw:oauth:issuers:0:jwksurl']);
    expect(problemPaths({ Resource: 'http://gw.example.com/mcp', 'Issuers:0:Issuer': KEYCLOAK })).toEqual([
      'gw:oauth:resource',
    ]);
    expect(problemPaths({ Resource: RESOURCE, 'Issuers:0:Issuer': 'ftp://sso.example.com' })).toEqual([
      'gw:oauth:issuers:0:issuer',
    ]);
    for (const loopback of ['http://127.0.0.1:9000/realms/dev', 'http://localhost:9000', 'http://[::1]:9000']) {
      expect(parse({ Resource: RESOURCE, 'Issuers:0:Issuer': loopback }).problems).toEqual([]);
    }
    expect(parse({ Resource: RESOURCE, 'Issuers:0:Issuer': KEYCLOAK }).problems).toEqual([]);
  });

  it('refuses HMAC, none and unknown algorithms, and an empty list', () => {
    for (const algorithms of ['HS256', 'RS256,HS256', 'none', 'ES512', ' , ']) {
      const { problems } = parse({
        Resource: RESOURCE,
        'Issuers:0:Issuer': KEYCLOAK,
        'Issuers:0:Algorithms': algorithms,
      });
      expect(problems).toEqual([
        { path: 'Gw:OAuth:Issuers:0:Algorithms', message: expect.stringMatching(/asymmetric only/) },
      ]);
    }
  });

  it('refuses an issuer configured twice', () => {
    const problems = parse({ Resource: RESOURCE, 'Issuers:0:Issuer': KEYCLOAK, 'Issuers:1:Issuer': KEYCLOAK }).problems;
    expect(problems).toEqual([{ path: 'Gw:OAuth:Issuers:1:Issuer', message: `${KEYCLOAK} is configured twice` }]);
  });

  it('refuses unknown settings, naming their key', () => {
    expect(
      problemPaths({ Resource: RESOURCE, 'Issuers:0:Issuer': KEYCLOAK, 'Issuers:0:JwksUri': 'https://x' }),
    ).toEqual(['gw:oauth:issuers:0:jwksuri']);
    expect(
      problemPaths({ Resource: RESOURCE, 'Issuers:0:Issuer': KEYCLOAK, 'Issuers:0:Provision:Budget': '5' }),
    ).toEqual(['gw:oauth:issuers:0:provision:budget']);
    expect(problemPaths({ Resource: RESOURCE, Issuer: KEYCLOAK })).toEqual(['gw:oauth:issuer']);
    expect(problemPaths({ Resource: RESOURCE, 'Issuers:first:Issuer': KEYCLOAK })).toEqual([
      'gw:oauth:issuers:first:issuer',
    ]);
  });

  it('refuses an issuer without Issuer, or with white space in it', () => {
    expect(problemPaths({ Resource: RESOURCE, 'Issuers:0:Audience': 'x' })).toEqual(['gw:oauth:issuers:0:issuer']);
    expect(problemPaths({ Resource: RESOURCE, 'Issuers:0:Issuer': 'https://sso.example.com/a b' })).toEqual([
      'gw:oauth:issuers:0:issuer',
    ]);
  });

  it('refuses out-of-range numbers, a bad flag and a claim that is no claim name', () => {
    const at = (setting: string, value: string) =>
      problemPaths({
        Resource: RESOURCE,
        'Issuers:0:Issuer': KEYCLOAK,
        'Issuers:0:Provision:Enabled': 'true',
        [`Issuers:0:${setting}`]: value,
      });
    expect(at('ClockToleranceSeconds', '-1')).toEqual(['gw:oauth:issuers:0:clocktoleranceseconds']);
    expect(at('ClockToleranceSeconds', '301')).toEqual(['gw:oauth:issuers:0:clocktoleranceseconds']);
    expect(at('ClockToleranceSeconds', 'soon')).toEqual(['gw:oauth:issuers:0:clocktoleranceseconds']);
    expect(at('JwksCooldownSeconds', '3601')).toEqual(['gw:oauth:issuers:0:jwkscooldownseconds']);
    expect(at('Provision:DailyTokenBudget', '0')).toEqual(['gw:oauth:issuers:0:provision:dailytokenbudget']);
    expect(at('Provision:DailyTokenBudget', '1.5')).toEqual(['gw:oauth:issuers:0:provision:dailytokenbudget']);
    expect(at('SubjectClaim', 'a b')).toEqual(['gw:oauth:issuers:0:subjectclaim']);
    expect(
      problemPaths({ Resource: RESOURCE, 'Issuers:0:Issuer': KEYCLOAK, 'Issuers:0:Provision:Enabled': 'yes' }),
    ).toEqual(['gw:oauth:issuers:0:provision:enabled']);
  });
});

describe('metadataUrlOf', () => {
  it('inserts the well-known path between the host and the resource path (RFC 9728 3.1)', () => {
    expect(metadataUrlOf('https://gw.example.com/mcp')).toBe(
      'https://gw.example.com/.well-known/oauth-protected-resource/mcp',
    );
    expect(metadataUrlOf('https://gw.example.com/mcp/')).toBe(
      'https://gw.example.com/.well-known/oauth-protected-resource/mcp',
    );
    expect(metadataUrlOf('https://gw.example.com/tenants/a/mcp')).toBe(
      'https://gw.example.com/.well-known/oauth-protected-resource/tenants/a/mcp',
    );
    expect(metadataUrlOf('https://gw.example.com/')).toBe(
      'https://gw.example.com/.well-known/oauth-protected-resource',
    );
    expect(metadataUrlOf('http://127.0.0.1:8080/mcp')).toBe(
      'http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp',
    );
  });
});

describe('Gw:OAuth through the gateway configuration', () => {
  const base = {
    Gw__LicenseKey: 'lic-123',
    Gw__Jwt__SigningKey: 'k'.repeat(32),
    Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081',
  };
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      parseGatewayConfig(readEnvironment(env));
    } catch (error) {
      if (error instanceof ConfigError) return error.message.split('\n');
      throw error;
    }
    return expect.unreachable('expected a ConfigError');
  };

  it('is off without issuers', () => {
    expect(parseGatewayConfig(readEnvironment(base)).config.oauth).toBeNull();
  });

  it('reads issuers from environment variables', () => {
    const { config } = parseGatewayConfig(
      readEnvironment({
        ...base,
        Gw__OAuth__Resource: RESOURCE,
        Gw__OAuth__Issuers__0__Issuer: KEYCLOAK,
        Gw__OAuth__Issuers__0__Algorithms: 'RS256',
        Gw__OAuth__Issuers__0__Provision__Enabled: 'true',
        Gw__OAuth__Issuers__0__Provision__Scopes: 'orders:read',
        GW__OAUTH__ISSUERS__1__ISSUER: 'https://login.microsoftonline.com/tenant-id/v2.0',
        GW__OAUTH__ISSUERS__1__AUDIENCE: 'api://tollgate',
      }),
    );
    expect(config.oauth).toEqual({
      resource: RESOURCE,
      resourceMetadataUrl: 'https://gw.example.com/.well-known/oauth-protected-resource/mcp',
      issuers: [
        {
          issuer: KEYCLOAK,
          audience: RESOURCE,
          algorithms: ['RS256'],
          clockToleranceSeconds: 30,
          jwksCooldownSeconds: 10,
          jwksMaxStaleSeconds: 21600,
          subjectClaim: 'sub',
          provision: { dailyTokenBudget: 100_000, allowedTools: null, scopes: ['orders:read'] },
        },
        {
          issuer: 'https://login.microsoftonline.com/tenant-id/v2.0',
          audience: 'api://tollgate',
          algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
          clockToleranceSeconds: 30,
          jwksCooldownSeconds: 10,
          jwksMaxStaleSeconds: 21600,
          subjectClaim: 'sub',
        },
      ],
    });
  });

  it('refuses to start with issuers but no resource outside development, naming the key', () => {
    const problems = problemsOf({ ...base, Gw__OAuth__Issuers__0__Issuer: KEYCLOAK });
    expect(problems).toEqual([expect.stringMatching(/^Gw:OAuth:Resource: is required/)]);
  });

  it('in development, defaults the resource to its own /mcp on loopback at its port', () => {
    const { config } = parseGatewayConfig(
      readEnvironment({
        ...base,
        NODE_ENV: 'development',
        PORT: '9090',
        Gw__OAuth__Issuers__0__Issuer: 'http://127.0.0.1:9000/realms/dev',
      }),
    );
    expect(config.oauth?.resource).toBe('http://127.0.0.1:9090/mcp');
    expect(config.oauth?.issuers[0]?.audience).toBe('http://127.0.0.1:9090/mcp');
  });

  it('reports every OAuth problem with the others', () => {
    const problems = problemsOf({
      ...base,
      Gw__Admin__TokenExpiryDays: '-1',
      Gw__OAuth__Resource: RESOURCE,
      Gw__OAuth__Issuers__0__Issuer: 'http://sso.example.com',
      Gw__OAuth__Issuers__0__Algorithms: 'HS256',
    });
    expect(problems.map((line) => line.slice(0, line.indexOf(': ')).toLowerCase()).sort()).toEqual(
      ['gw:admin:tokenexpirydays', 'gw:oauth:issuers:0:algorithms', 'gw:oauth:issuers:0:issuer'].sort(),
    );
  });
});
