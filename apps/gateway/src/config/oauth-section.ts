import type { ExternalAlgorithm, TrustedIssuer } from '@tollgate/gateway-core';
import type { ConfigProblem } from '@tollgate/gateway-core/errors';
import {
  DEFAULT_CLOCK_TOLERANCE_SECONDS,
  DEFAULT_JWKS_COOLDOWN_SECONDS,
  DEFAULT_JWKS_MAX_STALE_SECONDS,
  EXTERNAL_ALGORITHMS,
  scopeProblem,
} from '@tollgate/gateway-core/internal';

/**
 * The gateway as an OAuth resource server (`Gw:OAuth:*`): the public URL of
 * its MCP endpoint, and the issuers whose access tokens it accepts, e.g.
 * `Gw:OAuth:Issuers:0:Issuer`. Absent issuers: the OAuth surface is off and
 * only the gateway's own tokens are accepted.
 */
export interface OAuthConfig {
  /**
   * The MCP endpoint's public URL: the protected resource, and the audience tokens must carry by default (RFC 8707).
   */
  resource: string;
  /** Where its protected resource metadata is served (RFC 9728 3.1: the well-known path, then the resource's path). */
  resourceMetadataUrl: string;
  issuers: TrustedIssuer[];
}

const SECTION = 'Gw:OAuth';
const ISSUER_SETTINGS = [
  'issuer',
  'jwksurl',
  'audience',
  'algorithms',
  'clocktoleranceseconds',
  'subjectclaim',
  'jwkscooldownseconds',
  'jwksmaxstaleseconds',
];
const PROVISION_SETTINGS = ['enabled', 'dailytokenbudget', 'allowedtools', 'scopes'];
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;
const DEFAULT_PROVISIONED_BUDGET = 100_000;

interface Context {
  problems: ConfigProblem[];
  /** Each setting's name as the user wrote it, by its lower-case form: problems name keys as written. */
  written: Map<string, string>;
  /** The development default of `Resource`: this instance's own /mcp on loopback. */
  developmentResource: string | undefined;
}

/** Null when no issuer is configured; problems are added by key. */
export function oauthConfigFromSection(
  entries: Readonly<Record<string, string>>,
  problems: ConfigProblem[],
  developmentResource?: string,
): OAuthConfig | null {
  const written = new Map(Object.keys(entries).map((key) => [key.toLowerCase(), key]));
  const context: Context = { problems, written, developmentResource };
  const settings = lowerKeys(entries);
  const byIndex = groupIssuers(settings, context);
  for (const key of Object.keys(settings)) {
    if (key !== 'resource' && !key.startsWith('issuers:'))
      problems.push({ path: `${SECTION}:${written.get(key)}`, message: 'unknown setting (Resource, Issuers:<n>:...)' });
  }
  if (byIndex.size === 0) return null;
  const resource = resourceUrl(settings.resource, context);
  if (resource === undefined) return null;
  const issuers = [...byIndex].map(([index, values]) => trustedIssuer(index, values, resource, context));
  checkUnique(issuers, problems);
  return { resource, resourceMetadataUrl: metadataUrlOf(resource), issuers };
}

/** RFC 9728 3.1: `/.well-known/oauth-protected-resource` inserted between the host and the resource's path. */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

function lowerKeys(entries: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).map(([key, value]) => [key.toLowerCase(), value]));
}

/** `issuers:<n>:<setting>` entries, grouped by `<n>` in numeric order. */
function groupIssuers(settings: Record<string, string>, context: Context): Map<number, Record<string, string>> {
  const groups = new Map<number, Record<string, string>>();
  for (const [key, value] of Object.entries(settings)) {
    const match = /^issuers:(\d+):(.+)$/.exec(key);
    if (!key.startsWith('issuers:')) continue;
    if (!match) {
      context.problems.push({
        path: `${SECTION}:${context.written.get(key)}`,
        message: 'expected Gw:OAuth:Issuers:<n>:<setting>',
      });
      continue;
    }
    const index = Number(match[1]);
    const group = groups.get(index) ?? {};
    group[match[2]!] = value;
    groups.set(index, group);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}

function resourceUrl(value: string | undefined, context: Context): string | undefined {
  const path = `${SECTION}:Resource`;
  const resource = value ?? context.developmentResource;
  if (resource === undefined) {
    context.problems.push({
      path,
      message:
        'is required with trusted issuers: the public URL of the MCP endpoint, e.g. https://gateway.example.com/mcp',
    });
    return undefined;
  }
  const url = checkedUrl(resource, path, context);
  if (url && (url.search || url.hash))
    context.problems.push({ path, message: 'must not carry a query or fragment (RFC 9728)' });
  return url?.href;
}

function trustedIssuer(
  index: number,
  values: Record<string, string>,
  resource: string,
  context: Context,
): TrustedIssuer {
  const at = (setting: string) => `${SECTION}:Issuers:${index}:${setting}`;
  for (const key of Object.keys(values)) {
    const known = key.startsWith('provision:')
      ? PROVISION_SETTINGS.includes(key.slice('provision:'.length))
      : ISSUER_SETTINGS.includes(key);
    if (!known)
      context.problems.push({
        path: `${SECTION}:${context.written.get(`issuers:${index}:${key}`) ?? key}`,
        message: 'unknown setting',
      });
  }
  const issuer = values.issuer;
  if (issuer === undefined)
    context.problems.push({ path: at('Issuer'), message: 'is required: the exact `iss` of the tokens' });
  else if (/\s/.test(issuer)) context.problems.push({ path: at('Issuer'), message: 'must not contain white space' });
  else checkedUrl(issuer, at('Issuer'), context);
  if (values.jwksurl !== undefined) checkedUrl(values.jwksurl, at('JwksUrl'), context);
  const subjectClaim = values.subjectclaim ?? 'sub';
  if (!CLAIM_NAME.test(subjectClaim))
    context.problems.push({ path: at('SubjectClaim'), message: 'must be a claim name such as sub, client_id or azp' });
  return {
    issuer: issuer ?? '',
    ...(values.jwksurl === undefined ? {} : { jwksUrl: values.jwksurl }),
    audience: values.audience ?? resource,
    algorithms: algorithms(values.algorithms, at('Algorithms'), context),
    clockToleranceSeconds: seconds(
      values.clocktoleranceseconds,
      DEFAULT_CLOCK_TOLERANCE_SECONDS,
      300,
      at('ClockToleranceSeconds'),
      context,
    ),
    jwksCooldownSeconds: seconds(
      values.jwkscooldownseconds,
      DEFAULT_JWKS_COOLDOWN_SECONDS,
      3600,
      at('JwksCooldownSeconds'),
      context,
    ),
    jwksMaxStaleSeconds: seconds(
      values.jwksmaxstaleseconds,
      DEFAULT_JWKS_MAX_STALE_SECONDS,
      7 * 24 * 3600,
      at('JwksMaxStaleSeconds'),
      context,
    ),
    subjectClaim,
    ...provision(values, at, context),
  };
}

function provision(
  values: Record<string, string>,
  at: (setting: string) => string,
  context: Context,
): Pick<TrustedIssuer, 'provision'> {
  const enabled = values['provision:enabled'];
  if (enabled !== undefined && !/^(true|false|1|0)$/i.test(enabled))
    context.problems.push({ path: at('Provision:Enabled'), message: 'must be true or false' });
  if (!/^(true|1)$/i.test(enabled ?? '')) return {};
  const budgetText = values['provision:dailytokenbudget'];
  const budget = budgetText === undefined ? DEFAULT_PROVISIONED_BUDGET : Number(budgetText);
  if (!Number.isSafeInteger(budget) || budget <= 0)
    context.problems.push({ path: at('Provision:DailyTokenBudget'), message: 'must be a positive whole number' });
  const tools = list(values['provision:allowedtools']);
  const scopes = list(values['provision:scopes']);
  for (const scope of scopes) {
    const problem = scopeProblem(scope);
    if (problem !== null) context.problems.push({ path: at('Provision:Scopes'), message: `${scope}: ${problem}` });
  }
  return { provision: { dailyTokenBudget: budget, allowedTools: tools.length === 0 ? null : tools, scopes } };
}

function algorithms(value: string | undefined, path: string, context: Context): ExternalAlgorithm[] {
  if (value === undefined) return [...EXTERNAL_ALGORITHMS];
  const named = list(value);
  const unknown = named.filter((name) => !(EXTERNAL_ALGORITHMS as readonly string[]).includes(name));
  if (unknown.length > 0 || named.length === 0) {
    context.problems.push({
      path,
      message:
        `must list some of ${EXTERNAL_ALGORITHMS.join(', ')} ` +
        `(asymmetric only; got ${unknown.join(', ') || 'none'})`,
    });
  }
  return named.filter((name): name is ExternalAlgorithm => (EXTERNAL_ALGORITHMS as readonly string[]).includes(name));
}

function seconds(value: string | undefined, fallback: number, max: number, path: string, context: Context): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0 || parsed > max)
    context.problems.push({ path, message: `must be a number of seconds from 0 to ${max}` });
  return parsed;
}

/**
 * An absolute http(s) URL; plain http only on loopback, since keys fetched
 * or tokens named over an unprotected network could be forged.
 */
function checkedUrl(value: string, path: string, context: Context): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    context.problems.push({ path, message: 'must be an absolute URL' });
    return undefined;
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) return url;
  context.problems.push({ path, message: 'must be https (plain http only on loopback)' });
  return undefined;
}

function checkUnique(issuers: TrustedIssuer[], problems: ConfigProblem[]): void {
  const seen = new Set<string>();
  issuers.forEach((issuer, index) => {
    if (seen.has(issuer.issuer))
      problems.push({ path: `${SECTION}:Issuers:${index}:Issuer`, message: `${issuer.issuer} is configured twice` });
    seen.add(issuer.issuer);
  });
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
