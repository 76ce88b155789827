import { extractResourceMetadataUrl, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { bearerChallengeHeader, withResourceMetadata } from './bearer-challenge.js';

const METADATA = 'https://gw.example.com/.well-known/oauth-protected-resource/mcp';

/** RFC 6750 3 / RFC 7235: `Bearer`, then comma-separated auth-params whose values are quoted strings. */
const CHALLENGE_SYNTAX =
  /^Bearer(?: [a-z_]+="[\x20\x21\x23-\x5B\x5D-\x7E]*"(?:, [a-z_]+="[\x20\x21\x23-\x5B\x5D-\x7E]*")*)?$/;

/** What the MCP SDK client reads from a 401/403 carrying the header. */
function asTheSdkReadsIt(header: string) {
  const response = new Response(null, { status: 401, headers: { 'WWW-Authenticate': header } });
  const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response);
  return {
    resourceMetadataUrl: resourceMetadataUrl?.href,
    scope,
    error,
    legacy: extractResourceMetadataUrl(response)?.href,
  };
}

describe('bearerChallengeHeader', () => {
  it('says just Bearer for a request without credential when no issuer is trusted', () => {
    expect(bearerChallengeHeader({}, undefined)).toBe('Bearer');
    expect(asTheSdkReadsIt('Bearer')).toEqual({
      resourceMetadataUrl: undefined,
      scope: undefined,
      error: undefined,
      legacy: undefined,
    });
  });

  it('names the resource metadata for a request without credential when issuers are trusted', () => {
    const header = bearerChallengeHeader({}, METADATA);
    expect(header).toBe(`Bearer resource_metadata="${METADATA}"`);
    expect(header).toMatch(CHALLENGE_SYNTAX);
    expect(asTheSdkReadsIt(header)).toEqual({
      resourceMetadataUrl: METADATA,
      scope: undefined,
      error: undefined,
      legacy: METADATA,
    });
  });

  it('says invalid_token for a refused token, with the metadata when issuers are trusted', () => {
    expect(bearerChallengeHeader({ error: 'invalid_token' }, undefined)).toBe('Bearer error="invalid_token"');
    const header = bearerChallengeHeader({ error: 'invalid_token' }, METADATA);
    expect(header).toBe(`Bearer resource_metadata="${METADATA}", error="invalid_token"`);
    expect(header).toMatch(CHALLENGE_SYNTAX);
    expect(asTheSdkReadsIt(header)).toEqual({
      resourceMetadataUrl: METADATA,
      scope: undefined,
      error: 'invalid_token',
      legacy: METADATA,
    });
  });

  it('says insufficient_scope with the scopes to ask for, which the SDK reads whole', () => {
    const header = bearerChallengeHeader(
      { error: 'insufficient_scope', scope: 'openid orders:read orders:write' },
      METADATA,
    );
    expect(header).toBe(
      `Bearer resource_metadata="${METADATA}", error="insufficient_scope", scope="openid orders:read orders:write"`,
    );
    expect(header).toMatch(CHALLENGE_SYNTAX);
    expect(asTheSdkReadsIt(header)).toEqual({
      resourceMetadataUrl: METADATA,
      scope: 'openid orders:read orders:write',
      error: 'insufficient_scope',
      legacy: METADATA,
    });
  });

  it('escapes a quote or backslash in a scope and drops what a header cannot carry', () => {
    const header = bearerChallengeHeader({ error: 'insufficient_scope', scope: 'a"b c\\d e\r\nf' }, METADATA);
    expect(header).toBe(`Bearer resource_metadata="${METADATA}", error="insufficient_scope", scope="a\\"b c\\\\d ef"`);
    expect(() => new Headers({ 'WWW-Authenticate': header })).not.toThrow();
  });

  it('keeps a loopback metadata URL with a port readable', () => {
    const local = 'http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp';
    expect(asTheSdkReadsIt(bearerChallengeHeader({ error: 'invalid_token' }, local)).resourceMetadataUrl).toBe(local);
  });
});

describe('withResourceMetadata', () => {
  it('hands the metadata URL to the handlers below it, and only to them', async () => {
    const app = new Hono();
    app.use('/mcp', withResourceMetadata(METADATA));
    app.get('/mcp', (c) => c.text(c.get('resourceMetadataUrl')));
    app.get('/other', (c) => c.text(String(c.get('resourceMetadataUrl'))));
    expect(await (await app.request('/mcp')).text()).toBe(METADATA);
    expect(await (await app.request('/other')).text()).toBe('undefined');
  });
});
