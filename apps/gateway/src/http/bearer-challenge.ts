import type { BearerChallenge } from '@tollgate/gateway-core';
import type { MiddlewareHandler } from 'hono';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set on /mcp when the gateway trusts OAuth issuers: named in every challenge (RFC 9728 5.1). */
    resourceMetadataUrl: string;
  }
}

/** Announces the protected resource metadata to the /mcp answers below it. */
export function withResourceMetadata(url: string): MiddlewareHandler {
  return async (c, next) => {
    c.set('resourceMetadataUrl', url);
    await next();
  };
}

/**
 * The `WWW-Authenticate` value of a refused credential (RFC 6750 3): the
 * error and scopes the gateway found, and where the client learns how to get
 * a token (RFC 9728 5.1) when OAuth issuers are trusted.
 */
export function bearerChallengeHeader(challenge: BearerChallenge, resourceMetadataUrl: string | undefined): string {
  const params = [
    resourceMetadataUrl === undefined ? null : `resource_metadata="${resourceMetadataUrl}"`,
    challenge.error === undefined ? null : `error="${challenge.error}"`,
    challenge.scope === undefined ? null : `scope="${quotable(challenge.scope)}"`,
  ].filter((param) => param !== null);
  return params.length === 0 ? 'Bearer' : `Bearer ${params.join(', ')}`;
}

/**
 * Scope names come from tool definitions: a quote or backslash is escaped
 * (RFC 9110 quoted-string) and anything a header cannot carry is dropped, so
 * a strange scope never breaks the challenge or the response.
 */
function quotable(text: string): string {
  return text.replace(/[^\t\x20-\x7e]/g, '').replace(/["\\]/g, (character) => `\\${character}`);
}
