import { expect } from 'vitest';
import type { McpExchange } from './mcp.js';
import { freePort } from './processes.js';

/**
 * The gateway side of the OAuth process tests (issue 17): its `Gw:OAuth:*`
 * settings as environment variables, and reading its `WWW-Authenticate`
 * challenges.
 */

export interface IssuerSettings {
  issuer: string;
  jwksUrl?: string;
  audience?: string;
  algorithms?: readonly string[];
  clockToleranceSeconds?: number;
  subjectClaim?: 'sub' | 'client_id' | 'azp';
  provision?: { dailyTokenBudget: number; allowedTools?: readonly string[]; scopes?: readonly string[] };
}

/**
 * The gateway's public MCP URL must be known before it starts (it is a
 * setting, never guessed from a Host header), so the port is picked first.
 */
export async function reserveGatewayUrl(): Promise<{ port: number; origin: string; resource: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  return { port, origin, resource: `${origin}/mcp` };
}

/** `PORT`, `Gw__OAuth__Resource` and one `Gw__OAuth__Issuers__<n>__*` group per issuer. */
export function oauthEnv(port: number, resource: string, issuers: readonly IssuerSettings[]): Record<string, string> {
  const env: Record<string, string> = { PORT: String(port), Gw__OAuth__Resource: resource };
  issuers.forEach((settings, n) => {
    const key = (name: string) => `Gw__OAuth__Issuers__${n}__${name}`;
    env[key('Issuer')] = settings.issuer;
    if (settings.jwksUrl) env[key('JwksUrl')] = settings.jwksUrl;
    if (settings.audience) env[key('Audience')] = settings.audience;
    if (settings.algorithms) env[key('Algorithms')] = settings.algorithms.join(',');
    if (settings.clockToleranceSeconds !== undefined)
      env[key('ClockToleranceSeconds')] = String(settings.clockToleranceSeconds);
    if (settings.subjectClaim) env[key('SubjectClaim')] = settings.subjectClaim;
    if (settings.provision) {
      env[key('Provision__Enabled')] = 'true';
      env[key('Provision__DailyTokenBudget')] = String(settings.provision.dailyTokenBudget);
      if (settings.provision.allowedTools)
        env[key('Provision__AllowedTools')] = settings.provision.allowedTools.join(',');
      if (settings.provision.scopes) env[key('Provision__Scopes')] = settings.provision.scopes.join(',');
    }
  });
  return env;
}

/** A `WWW-Authenticate` challenge: its scheme and auth-params (quoted values unquoted). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** Parses one challenge, e.g. `Bearer error="invalid_token", resource_metadata="http://…"`. */
export function parseChallenge(header: string | null): Challenge {
  if (header === null) throw new Error('no WWW-Authenticate header');
  const match = /^(\S+)\s*(.*)$/s.exec(header.trim());
  const params: Record<string, string> = {};
  for (const param of (match?.[2] ?? '').matchAll(/([\w-]+)=(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params[param[1]!] = param[2] !== undefined ? param[2].replace(/\\(.)/g, '$1') : param[3]!;
  }
  return { scheme: match?.[1] ?? '', params };
}

/** The URL every challenge of `/mcp` points at (RFC 9728, path-suffixed form). */
export function resourceMetadataUrl(origin: string): string {
  return `${origin}/.well-known/oauth-protected-resource/mcp`;
}

/** 401 with `Bearer error="invalid_token", resource_metadata="…"`: a presented token the gateway refused. */
export function expectInvalidToken(exchange: McpExchange, origin: string): void {
  expect({ status: exchange.status, text: exchange.text }).toMatchObject({ status: 401 });
  const challenge = parseChallenge(exchange.headers.get('www-authenticate'));
  expect(challenge.scheme).toBe('Bearer');
  expect(challenge.params).toMatchObject({ error: 'invalid_token', resource_metadata: resourceMetadataUrl(origin) });
}
