/**
 * Where an issuer publishes its keys, from its metadata: OpenID Connect
 * discovery first (`<issuer>/.well-known/openid-configuration`, what
 * Keycloak, Entra ID, Okta and Auth0 serve), then RFC 8414
 * (`/.well-known/oauth-authorization-server` inserted before the issuer's path).
 * The metadata must name the same issuer (RFC 8414 3.3), or it is not used.
 * With `signal`, it bounds every request; without, each gets its own timeout.
 */
export async function discoverJwksUrl(
  issuer: string,
  fetcher: typeof fetch = fetch,
  signal?: AbortSignal,
): Promise<string> {
  const problems: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      return await jwksUriAt(url, issuer, fetcher, signal ?? AbortSignal.timeout(DISCOVERY_TIMEOUT_MS));
    } catch (error) {
      problems.push(`${url}: ${(error as Error).message}`);
    }
  }
  throw new Error(`no usable metadata for issuer ${issuer} (${problems.join('; ')})`);
}

const DISCOVERY_TIMEOUT_MS = 5000;

export function metadataUrls(issuer: string): string[] {
  const base = new URL(issuer);
  const path = base.pathname.replace(/\/$/, '');
  return [
    `${base.origin}${path}/.well-known/openid-configuration`,
    `${base.origin}/.well-known/oauth-authorization-server${path}`,
  ];
}

async function jwksUriAt(url: string, issuer: string, fetcher: typeof fetch, signal: AbortSignal): Promise<string> {
  const response = await fetcher(url, { headers: { accept: 'application/json' }, signal });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (metadata.issuer !== issuer) throw new Error(`names issuer ${JSON.stringify(metadata.issuer)}`);
  if (typeof metadata.jwks_uri !== 'string') throw new Error('has no jwks_uri');
  return metadata.jwks_uri;
}
