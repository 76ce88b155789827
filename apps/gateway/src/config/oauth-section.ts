import type { ExternalAlgorithm, TrustedIssuer } from '@tollgate/gateway-core';
import type { ConfigProblem } from '@tollgate/gateway-core/errors';
import { z } from 'zod';
import { declareKeys, fieldOf, keyName, matchKey, type Field } from './declare.js';
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
/** `Issuers:<n>`: where each trusted issuer's settings sit, by its index. */
const ISSUERS = 'Issuers';
const ISSUER = `${SECTION}:${ISSUERS}:<n>`;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;
const DEFAULT_PROVISIONED_BUDGET = 100_000;

/** A number of seconds from 0 to `max`; unset is `fallback`. */
function secondsUpTo(max: number, fallback: number) {
  return {
    schema: z
      .string()
      .optional()
      .transform((value) => (value === undefined ? fallback : Number(value)))
      .refine((value) => Number.isFinite(value) && value >= 0 && value <= max, {
        error: `must be a number of seconds from 0 to ${max}`,
      }),
    type: `number 0–${max}`,
  } satisfies Field;
}

const issuerList = {
  schema: z.string().optional().transform(list),
  type: 'list',
} satisfies Field;

const text = { schema: z.string().optional(), type: 'text' } satisfies Field;
const url = { ...text, type: 'https URL (http on loopback)' } satisfies Field;

/**
 * `Gw:OAuth:*`: the gateway as an OAuth resource server. `Resource` and any
 * number of trusted issuers, `Issuers:<n>:*` (n = 0, 1, ...). Read together
 * by `oauthConfigFromSection`, which checks how they go together.
 */
export const OAUTH_KEYS = declareKeys({
  resource: {
    name: `${SECTION}:Resource`,
    field: url,
    defaultIs: '— (required with an issuer; `http://127.0.0.1:<PORT>/mcp` in development mode)',
    description:
      'The public URL of the MCP endpoint: the protected resource of RFC 9728 and the audience tokens must carry ' +
      'by default (RFC 8707). Never taken from a `Host` header. See [Use your identity ' +
      'provider](../guide/identity-providers.md).',
  },
  issuer: {
    name: `${ISSUER}:Issuer`,
    field: url,
    defaultIs: 'unset = no OAuth (only the gateway’s own tokens)',
    description:
      'A trusted authorization server: exactly the `iss` of its tokens. `https`, or `http` on loopback. Each ' +
      'issuer turns on the protected resource metadata and the `resource_metadata` challenge on every 401.',
  },
  jwksUrl: {
    name: `${ISSUER}:JwksUrl`,
    field: url,
    defaultIs: "from the issuer's metadata",
    description:
      'Where its keys are (else `jwks_uri` from `<issuer>/.well-known/openid-configuration`, then RFC 8414).',
  },
  audience: {
    name: `${ISSUER}:Audience`,
    field: text,
    defaultIs: '`Gw:OAuth:Resource`',
    description: 'The `aud` its tokens must carry.',
  },
  algorithms: {
    name: `${ISSUER}:Algorithms`,
    field: issuerList,
    defaultIs: () => EXTERNAL_ALGORITHMS,
    description: 'Signature algorithms accepted (asymmetric only; `none` and HMAC can never be configured).',
  },
  clockToleranceSeconds: {
    name: `${ISSUER}:ClockToleranceSeconds`,
    field: secondsUpTo(300, DEFAULT_CLOCK_TOLERANCE_SECONDS),
    description: 'Leeway for `exp` and `nbf`.',
  },
  subjectClaim: {
    name: `${ISSUER}:SubjectClaim`,
    field: { schema: z.string().default('sub'), type: 'claim name' },
    description:
      'The claim that names the agent (`sub`; `azp`/`client_id` for client-credentials tokens; `oid` in Entra ID).',
  },
  jwksCooldownSeconds: {
    name: `${ISSUER}:JwksCooldownSeconds`,
    field: secondsUpTo(3600, DEFAULT_JWKS_COOLDOWN_SECONDS),
    description:
      'Least time between two attempts to fetch its keys, failed ones included: what a flood of made-up key ids, ' +
      'or the issuer being down, can cost (one fetch per cooldown).',
  },
  jwksMaxStaleSeconds: {
    name: `${ISSUER}:JwksMaxStaleSeconds`,
    field: secondsUpTo(7 * 24 * 3600, DEFAULT_JWKS_MAX_STALE_SECONDS),
    description:
      'How long the last good keys stay in use while the issuer cannot be reached (6 h by default); past it, its ' +
      'tokens get 503 until a fetch works.',
  },
  provisionEnabled: {
    name: `${ISSUER}:Provision:Enabled`,
    field: {
      schema: z
        .string()
        .regex(/^(true|false|1|0)$/i, { error: 'must be true or false' })
        .transform((value) => /^(true|1)$/i.test(value))
        .default(false),
      type: 'boolean',
    },
    description:
      'An identity seen for the first time gets an agent of its own from the `Provision:*` template (else it ' +
      "must be listed in an agent's `externalSubjects`).",
  },
  provisionDailyTokenBudget: {
    name: `${ISSUER}:Provision:DailyTokenBudget`,
    field: {
      schema: z
        .string()
        .optional()
        .transform((value) => (value === undefined ? DEFAULT_PROVISIONED_BUDGET : Number(value)))
        .refine((value) => Number.isSafeInteger(value) && value > 0, { error: 'must be a positive whole number' }),
      type: 'whole number ≥ 1',
    },
    description: 'The daily token budget of provisioned agents.',
  },
  provisionAllowedTools: {
    name: `${ISSUER}:Provision:AllowedTools`,
    field: issuerList,
    defaultIs: 'all tools',
    description: 'The tools provisioned agents may call (comma list).',
  },
  provisionScopes: {
    name: `${ISSUER}:Provision:Scopes`,
    field: issuerList,
    defaultIs: 'none',
    description: 'The scopes provisioned agents are granted (comma list).',
  },
});

type Setting = keyof typeof OAUTH_KEYS;
/** `resource`: the one setting outside the issuers, as the section's lower-cased entries name it. */
const RESOURCE = OAUTH_KEYS.resource.name.slice(SECTION.length + 1).toLowerCase();
type Values = Partial<Record<Setting, string>>;

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
    if (key !== RESOURCE && !key.startsWith(`${ISSUERS.toLowerCase()}:`))
      problems.push({ path: `${SECTION}:${written.get(key)}`, message: 'unknown setting (Resource, Issuers:<n>:...)' });
  }
  if (byIndex.size === 0) return null;
  const resource = resourceUrl(settings[RESOURCE], context);
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
  const prefix = `${ISSUERS.toLowerCase()}:`;
  for (const [key, value] of Object.entries(settings)) {
    const match = /^(\d+):(.+)$/.exec(key.slice(prefix.length));
    if (!key.startsWith(prefix)) continue;
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
  const path = OAUTH_KEYS.resource.name;
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
  written: Record<string, string>,
  resource: string,
  context: Context,
): TrustedIssuer {
  const at = (setting: Setting) => keyName(OAUTH_KEYS[setting], index);
  const values = issuerValues(index, written, context);
  /** The setting parsed by its declaration; a problem is added under its key. */
  const read = <T>(setting: Setting): T => {
    const parsed = fieldOf(OAUTH_KEYS[setting], false).schema.safeParse(values[setting]);
    if (parsed.success) return parsed.data as T;
    for (const issue of parsed.error.issues) context.problems.push({ path: at(setting), message: issue.message });
    return Number.NaN as T;
  };
  const issuer = values.issuer;
  if (issuer === undefined)
    context.problems.push({ path: at('issuer'), message: 'is required: the exact `iss` of the tokens' });
  else if (/\s/.test(issuer)) context.problems.push({ path: at('issuer'), message: 'must not contain white space' });
  else checkedUrl(issuer, at('issuer'), context);
  if (values.jwksUrl !== undefined) checkedUrl(values.jwksUrl, at('jwksUrl'), context);
  const subjectClaim = read<string>('subjectClaim');
  if (!CLAIM_NAME.test(subjectClaim))
    context.problems.push({ path: at('subjectClaim'), message: 'must be a claim name such as sub, client_id or azp' });
  return {
    issuer: issuer ?? '',
    ...(values.jwksUrl === undefined ? {} : { jwksUrl: values.jwksUrl }),
    audience: values.audience ?? resource,
    algorithms: algorithms(values.algorithms, at('algorithms'), context),
    clockToleranceSeconds: read<number>('clockToleranceSeconds'),
    jwksCooldownSeconds: read<number>('jwksCooldownSeconds'),
    jwksMaxStaleSeconds: read<number>('jwksMaxStaleSeconds'),
    subjectClaim,
    ...provision(read, at, context),
  };
}

/** One issuer's settings by what they set; a setting no declaration matches is a problem under the key as written. */
function issuerValues(index: number, written: Record<string, string>, context: Context): Values {
  const values: Values = {};
  for (const [key, value] of Object.entries(written)) {
    const match = matchKey(OAUTH_KEYS, `${SECTION}:${ISSUERS}:${index}:${key}`);
    if (match === undefined || match.id === 'resource')
      context.problems.push({
        path: `${SECTION}:${context.written.get(`${ISSUERS.toLowerCase()}:${index}:${key}`) ?? key}`,
        message: 'unknown setting',
      });
    else values[match.id] = value;
  }
  return values;
}

function provision(
  read: <T>(setting: Setting) => T,
  at: (setting: Setting) => string,
  context: Context,
): Pick<TrustedIssuer, 'provision'> {
  if (!read<boolean>('provisionEnabled')) return {};
  const budget = read<number>('provisionDailyTokenBudget');
  const tools = read<string[]>('provisionAllowedTools');
  const scopes = read<string[]>('provisionScopes');
  for (const scope of scopes) {
    const problem = scopeProblem(scope);
    if (problem !== null) context.problems.push({ path: at('provisionScopes'), message: `${scope}: ${problem}` });
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
      problems.push({ path: keyName(OAUTH_KEYS.issuer, index), message: `${issuer.issuer} is configured twice` });
    seen.add(issuer.issuer);
  });
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
