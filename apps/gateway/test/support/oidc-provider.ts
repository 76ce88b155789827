import {
  createHash,
  createHmac,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
  sign,
  type KeyObject,
} from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import Provider, { errors as providerErrors } from 'oidc-provider';
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';

/**
 * A real OAuth 2.1 authorization server for process tests: panva's
 * `oidc-provider` in the test process, on loopback, with dynamic client
 * registration, PKCE (required for public clients), resource indicators
 * (RFC 8707: the access token is a JWT whose `aud` is the requested resource
 * and whose `scope` holds the granted scopes of that resource), and no UI:
 * the interaction endpoint signs in whoever the "browser" says it is
 * ({@link signIn}) and consents to what that user may grant.
 *
 * The signing keys are generated here, so a test can rotate them (restart on
 * the same port with new `kid`s) and sign hostile tokens with the very key
 * the issuer publishes (wrong audience, expired, alg confusion, ...).
 */

export type SigningAlg = 'RS256' | 'ES256';

export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The private JWK (with kid, alg, use) as the provider's keystore takes it. */
  readonly privateJwk: Record<string, unknown>;
  /** The public key as PEM text: what an HS256 "key confusion" token uses as its secret. */
  readonly publicPem: string;
}

/** A fresh key pair with a unique `kid`. */
export function generateSigningKey(alg: SigningAlg): SigningKey {
  const { privateKey, publicKey } =
    alg === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = `${alg.toLowerCase()}-${randomUUID()}`;
  return {
    kid,
    alg,
    privateKey,
    publicKey,
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' },
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

export interface TestIssuerOptions {
  /** The scopes a resource (the gateway) offers: the tool scopes. */
  scopes: readonly string[];
  /** How access tokens are signed (default RS256); both an RSA and an EC key are always published. */
  accessTokenAlg?: SigningAlg;
  /** Access token lifetime (default 300 s). */
  accessTokenTtlSeconds?: number;
}

/** What the sign-in "browser" tells the interaction endpoint. */
export interface SignInAs {
  /** The account that logs in: the token's `sub`. */
  account: string;
  /** The resource scopes the user grants at consent (default: all requested); the rest are refused. */
  grantScopes?: readonly string[];
}

export interface ObtainTokenOptions extends SignInAs {
  /** The resource indicator (RFC 8707): the gateway's MCP URL. */
  resource: string;
  /** Space-separated scopes to ask for (default: every scope of the issuer). */
  scope?: string;
  /** A client this issuer registered earlier (from an earlier `obtainToken`); default: register a new one. */
  clientId?: string;
}

/** The claims of a token the harness signs itself, before overrides. */
export interface MintClaims {
  sub: string;
  aud: string | string[];
  scope?: string;
  [claim: string]: unknown;
}

const ACCOUNT_HEADER = 'x-test-account';
const GRANT_HEADER = 'x-test-grant-scopes';
/** Where the harness's own client (not the SDK) is sent back with its code; nothing listens there. */
const HARNESS_CALLBACK = 'http://127.0.0.1:9/harness-callback';

/** An authorization server on loopback; see the module comment. */
export class TestIssuer {
  private server: Server | undefined;
  private port = 0;
  private keys: { rsa: SigningKey; ec: SigningKey };
  /** Clients, grants and sessions in memory, kept across a rotation's restart. */
  private readonly storage = createMemoryAdapter();
  /** Rotations so far: the keys of each generation, newest last. */
  readonly keyHistory: Array<{ rsa: SigningKey; ec: SigningKey }> = [];

  private constructor(private readonly options: TestIssuerOptions) {
    this.keys = { rsa: generateSigningKey('RS256'), ec: generateSigningKey('ES256') };
    this.keyHistory.push(this.keys);
  }

  static async start(options: TestIssuerOptions): Promise<TestIssuer> {
    const issuer = new TestIssuer(options);
    await issuer.listen();
    return issuer;
  }

  /** The issuer identifier: the exact `iss` of its tokens (no trailing slash). */
  get issuer(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get jwksUrl(): string {
    return `${this.issuer}/jwks`;
  }

  /** The key access tokens are signed with now. */
  get accessTokenKey(): SigningKey {
    return (this.options.accessTokenAlg ?? 'RS256') === 'RS256' ? this.keys.rsa : this.keys.ec;
  }

  /** The current keys (both are in the JWKS). */
  get currentKeys(): { rsa: SigningKey; ec: SigningKey } {
    return this.keys;
  }

  /**
   * Key rotation: stops, and starts again on the same port with new keys (new
   * `kid`s) only, the old ones gone from the JWKS. Registered clients and
   * grants survive (the issuer keeps its in-memory storage).
   */
  async rotateKeys(): Promise<void> {
    this.keys = { rsa: generateSigningKey('RS256'), ec: generateSigningKey('ES256') };
    this.keyHistory.push(this.keys);
    await this.close();
    await this.listen(this.port);
  }

  async stop(): Promise<void> {
    await this.close();
  }

  // ---- hostile and hand-made tokens -------------------------------------

  /** Standard access-token claims from this issuer, valid for five minutes; `overrides` win (undefined removes). */
  claims(claims: MintClaims, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    const all: Record<string, unknown> = {
      iss: this.issuer,
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
      client_id: 'hand-made-client',
      ...claims,
      ...overrides,
    };
    return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined));
  }

  /** A token signed with one of the issuer's published keys (default: the access-token key), as the provider would. */
  mint(
    payload: Record<string, unknown>,
    key: SigningKey = this.accessTokenKey,
    header: Record<string, unknown> = {},
  ): string {
    return signJwt({ alg: key.alg, typ: 'at+jwt', kid: key.kid, ...header }, payload, key);
  }

  /** `alg: none`, no signature, the current `kid`. */
  mintUnsigned(payload: Record<string, unknown>): string {
    return `${encodeSegment({ alg: 'none', typ: 'at+jwt', kid: this.keys.rsa.kid })}.${encodeSegment(payload)}.`;
  }

  /** HS256 keyed with the issuer's public RSA key (PEM text), the classic algorithm-confusion forgery. */
  mintHmacWithPublicKey(payload: Record<string, unknown>): string {
    const key = this.keys.rsa;
    const input = `${encodeSegment({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })}.${encodeSegment(payload)}`;
    return `${input}.${createHmac('sha256', key.publicPem).update(input).digest('base64url')}`;
  }

  /** Signed by a key the issuer never published, under the current `kid`. */
  mintWithForeignKey(payload: Record<string, unknown>): string {
    const foreign = generateSigningKey(this.accessTokenKey.alg);
    return signJwt({ alg: foreign.alg, typ: 'at+jwt', kid: this.accessTokenKey.kid }, payload, foreign);
  }

  // ---- the real flow, without the SDK ------------------------------------

  /**
   * Discovery, dynamic registration of a public client, authorization code
   * with PKCE (S256), sign-in and consent, code exchange: a real access token.
   */
  async obtainToken(
    options: ObtainTokenOptions,
  ): Promise<{ accessToken: string; scope: string | undefined; clientId: string }> {
    const metadata = await this.discovery();
    const clientId = options.clientId ?? (await this.register(metadata.registration_endpoint));
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const authorization = new URL(metadata.authorization_endpoint);
    authorization.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: HARNESS_CALLBACK,
      response_type: 'code',
      scope: options.scope ?? this.options.scopes.join(' '),
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: options.resource,
    }).toString();
    const callback = await signIn(authorization, HARNESS_CALLBACK, options);
    if (callback.searchParams.get('state') !== state) throw new Error(`state mismatch in ${callback.href}`);
    const code = callback.searchParams.get('code');
    if (!code) throw new Error(`no code: ${callback.href}`);
    const tokens = await postForm(metadata.token_endpoint, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: HARNESS_CALLBACK,
      client_id: clientId,
      code_verifier: verifier,
      resource: options.resource,
    });
    return { accessToken: tokens.access_token as string, scope: tokens.scope as string | undefined, clientId };
  }

  /** Dynamic client registration (RFC 7591) of a public client: its `client_id`. */
  private async register(endpoint: string): Promise<string> {
    const registered = await postJson(endpoint, {
      redirect_uris: [HARNESS_CALLBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      client_name: 'tollgate test harness',
    });
    return registered.client_id as string;
  }

  /** The provider's OpenID discovery document. */
  async discovery(): Promise<Record<string, any>> {
    const response = await fetch(`${this.issuer}/.well-known/openid-configuration`);
    if (response.status !== 200) throw new Error(`discovery: ${response.status}`);
    return (await response.json()) as Record<string, any>;
  }

  // ---- the server ----------------------------------------------------------

  private async listen(port = 0): Promise<void> {
    let provider: Provider | undefined;
    const server = createServer((req, res) => {
      // No keep-alive: a restart (rotation) must not leave clients a pooled socket that is already closed.
      res.setHeader('Connection', 'close');
      if (req.url?.startsWith('/interaction/')) void interact(provider!, req, res);
      else provider!.callback()(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    this.port = (server.address() as AddressInfo).port;
    provider = this.createProvider();
    this.server = server;
  }

  private async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private createProvider(): Provider {
    const scopes = this.options.scopes;
    const ttl = this.options.accessTokenTtlSeconds ?? 300;
    const alg = this.options.accessTokenAlg ?? 'RS256';
    const provider = new Provider(this.issuer, {
      adapter: this.storage,
      jwks: { keys: [this.keys.rsa.privateJwk, this.keys.ec.privateJwk] },
      scopes: ['openid', 'offline_access', ...scopes],
      cookies: { keys: [randomBytes(16).toString('hex')] },
      findAccount: (_ctx: unknown, accountId: string) => ({ accountId, claims: () => ({ sub: accountId }) }),
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string | string[]) => oneOf,
          useGrantedResource: () => true,
          // Any http(s) resource is a resource server offering the tool scopes; its tokens are JWTs for it.
          getResourceServerInfo: (_ctx: unknown, resource: string) => {
            if (!/^https?:\/\//.test(resource)) throw new providerErrors.InvalidTarget();
            return {
              scope: scopes.join(' '),
              audience: resource,
              accessTokenTTL: ttl,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg } },
            };
          },
        },
      },
      ttl: { AccessToken: ttl, AuthorizationCode: 60, Grant: 3600, Interaction: 600, Session: 3600, IdToken: 3600 },
    });
    provider.on('server_error', (_ctx: unknown, error: Error) => console.error('oidc-provider server_error', error));
    return provider;
  }
}

/**
 * The interaction endpoint: logs in the account the browser names and
 * consents to the requested resource scopes the browser allows (refusing the
 * rest), through the provider's interaction API. No pages: it answers with
 * the provider's redirect back to the authorization endpoint.
 */
async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const details = await provider.interactionDetails(req, res);
    const account = req.headers[ACCOUNT_HEADER];
    if (typeof account !== 'string' || account === '')
      throw new Error(`the sign-in request names no account (${ACCOUNT_HEADER})`);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: account } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    if (details.prompt.name !== 'consent') throw new Error(`unexpected prompt ${details.prompt.name}`);
    const grant = details.grantId
      ? (await provider.Grant.find(details.grantId))!
      : new provider.Grant({ accountId: details.session!.accountId!, clientId: details.params.client_id as string });
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    const allowed = grantableScopes(req);
    for (const [resource, requested] of Object.entries(missingResourceScopes ?? {})) {
      const granted = requested.filter((scope) => allowed === undefined || allowed.has(scope));
      const refused = requested.filter((scope) => !granted.includes(scope));
      if (granted.length > 0) grant.addResourceScope(resource, granted.join(' '));
      if (refused.length > 0) grant.rejectResourceScope(resource, refused.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  } catch (error) {
    res.statusCode = 500;
    res.setHeader('Content-Type', 'text/plain');
    res.end(`interaction failed: ${(error as Error).message}`);
  }
}

function grantableScopes(req: IncomingMessage): Set<string> | undefined {
  const header = req.headers[GRANT_HEADER];
  return typeof header === 'string' ? new Set(header.split(' ').filter(Boolean)) : undefined;
}

/**
 * A browser without a screen: follows the authorization URL's redirects,
 * keeping cookies, naming the user to the interaction endpoint, until it is
 * sent to `callbackPrefix`; returns that URL (with `code` and `state`, or
 * `error`). Each call is a fresh browser: no session from an earlier sign-in.
 */
export async function signIn(authorizationUrl: URL | string, callbackPrefix: string, as: SignInAs): Promise<URL> {
  const cookies = new Map<string, string>();
  const headers: Record<string, string> = { [ACCOUNT_HEADER]: as.account };
  if (as.grantScopes) headers[GRANT_HEADER] = as.grantScopes.join(' ');
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 16; hop += 1) {
    if (url.href.startsWith(callbackPrefix)) return url;
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      redirect: 'manual',
      headers: cookie === '' ? headers : { ...headers, cookie },
    });
    keepCookies(cookies, response.headers.getSetCookie());
    const body = await response.text();
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) {
      throw new Error(`sign-in stopped at ${url.href}: ${response.status} ${body.slice(0, 500)}`);
    }
    url = new URL(location, url);
  }
  throw new Error(`sign-in: too many redirects, last ${url.href}`);
}

function keepCookies(cookies: Map<string, string>, setCookies: string[]): void {
  for (const line of setCookies) {
    const [pair = '', ...attributes] = line.split(';');
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    const expired = attributes.some((attribute) => /^\s*expires=.*1970/i.test(attribute));
    if (value === '' || expired) cookies.delete(name);
    else cookies.set(name, value);
  }
}

/**
 * The SDK's `OAuthClientProvider`, in memory: a public client (no secret) that
 * registers dynamically. `redirectToAuthorization` is where a desktop client
 * opens the browser; here the harness's browser signs in as `as` and keeps
 * the code for the test to hand to `transport.finishAuth(code)`.
 */
export class MemoryOAuthClient implements OAuthClientProvider {
  static readonly REDIRECT_URL = 'http://127.0.0.1:9/oauth/callback';
  private information: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier: string | undefined;
  private expectedState: string | undefined;
  /** Every authorization URL the SDK sent the user to, in order. */
  readonly authorizationUrls: URL[] = [];
  /** The code of the last sign-in, for `finishAuth`. */
  authorizationCode: string | undefined;

  constructor(public as: SignInAs) {}

  get redirectUrl(): string {
    return MemoryOAuthClient.REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'tollgate oauth test',
      redirect_uris: [MemoryOAuthClient.REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.expectedState = randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrls.push(authorizationUrl);
    const callback = await signIn(authorizationUrl, MemoryOAuthClient.REDIRECT_URL, this.as);
    if (callback.searchParams.get('state') !== this.expectedState)
      throw new Error(`state mismatch in ${callback.href}`);
    const code = callback.searchParams.get('code');
    if (!code) throw new Error(`authorization refused: ${callback.href}`);
    this.authorizationCode = code;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no code verifier saved');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }
}

/** The payload of a JWT, unverified (for assertions on what the provider issued). */
export function decodeJwt(token: string): { header: Record<string, any>; payload: Record<string, any> } {
  const [header = '', payload = ''] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString()),
  };
}

function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function signJwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: SigningKey): string {
  const input = `${encodeSegment(header)}.${encodeSegment(payload)}`;
  // JWS ES256 signatures are r||s (IEEE P1363), not DER.
  const signature = sign(
    'sha256',
    Buffer.from(input),
    key.alg === 'ES256' ? { key: key.privateKey, dsaEncoding: 'ieee-p1363' } : key.privateKey,
  );
  return `${input}.${signature.toString('base64url')}`;
}

async function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`POST ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function postForm(url: string, fields: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}
