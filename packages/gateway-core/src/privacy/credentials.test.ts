import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCredentialKey } from './field-names.js';
import { createPrivacyFilter } from './filter.js';

/**
 * Secrets (issue 16 item 3): credentials in `key=value` / `key: value` /
 * JSON form inside strings, values under keys that name a credential, vendor
 * API keys, JWTs and bearer tokens, as fast-check generates them, written
 * plainly or the way someone walking around the filter would write them.
 */
const { filter } = createPrivacyFilter();

const words = fc.stringMatching(/^[a-z]{1,8}( [a-z]{1,8}){0,3}$/);

/** A password-like value: printable, no separator, at least one digit (so never a plain word). */
const secretValue = fc.stringMatching(/^[A-Za-z0-9!#%*+/@^_~-]{3,30}$/).map((value) => `${value}7`);

const KEYS = [
  'password',
  'Password',
  'PASSWORD',
  'passwd',
  'pwd',
  'passphrase',
  'db_password',
  'DB_PASSWORD',
  'secret',
  'client_secret',
  'api_key',
  'API-KEY',
  'x-api-key',
  'apikey',
  'access_token',
  'auth-token',
  'token',
  'AWS_SECRET_ACCESS_KEY',
  'private_key',
  'credentials',
];

describe('credentials inside strings', () => {
  it('redacts the value of a generated key=value, key: value or JSON pair, and only the value', () => {
    const form = fc.constantFrom(
      (key: string, value: string) => [`${key}=`, value, ''],
      (key: string, value: string) => [`${key}: `, value, ''],
      (key: string, value: string) => [`${key} = `, value, ''],
      (key: string, value: string) => [`{"${key}": "`, value, '"}'],
      (key: string, value: string) => [`${key}='`, value, "'"],
      (key: string, value: string) => [`?user=bob&${key}=`, value, '&lang=en'],
    );
    fc.assert(
      fc.property(fc.constantFrom(...KEYS), secretValue, form, words, words, (key, value, write, before, after) => {
        fc.pre(!(/token|key|secret|credential/i.test(key) && value.length < 8));
        const [head, secret, tail] = write(key, value);
        const text = `${before} ${head}${secret}${tail} ${after}`;
        expect(filter('t', text)).toEqual({
          value: `${before} ${head}[REDACTED:credential]${tail} ${after}`,
          redactions: { credential: 1 },
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('redacts the value when the key is written with zero-width characters or full-width letters, or the pair is URL- or entity-encoded', () => {
    const cases: Array<[string, string]> = [
      ['pass\u200Bword=hunter2', 'pass\u200Bword=[REDACTED:credential]'],
      [
        '\uFF50\uFF41\uFF53\uFF53\uFF57\uFF4F\uFF52\uFF44=hunter2',
        '\uFF50\uFF41\uFF53\uFF53\uFF57\uFF4F\uFF52\uFF44=[REDACTED:credential]',
      ],
      ['password\uFF1Ahunter2', 'password\uFF1A[REDACTED:credential]'],
      ['q=password%3Dhunter2', 'q=password%3D[REDACTED:credential]'],
      ['password&#61;hunter2', 'password&#61;[REDACTED:credential]'],
      [`blob ${Buffer.from('password=hunter2').toString('base64')}`, 'blob [REDACTED:credential]'],
    ];
    for (const [text, expected] of cases) expect(filter('t', { note: text }).value).toEqual({ note: expected });
  });
});

describe('keys naming a credential', () => {
  it.each([
    'dbPassword',
    'x-api-key',
    'AWS_SECRET_ACCESS_KEY',
    'githubToken',
    'slack_token',
    'oauth_client_secret',
    'userPwd',
    'signingKey',
    'credentials',
    'pin',
  ])('%s names a credential', (key) => {
    expect(isCredentialKey(key)).toBe(true);
    expect(filter('t', { [key]: 'anything at all' })).toEqual({
      value: { [key]: '[REDACTED:credential]' },
      redactions: { credential: 1 },
    });
  });

  it.each([
    'nextPageToken',
    'page_token',
    'maxTokens',
    'max_token',
    'passwordHint',
    'passwordUpdatedAt',
    'secretName',
    'tokenType',
    'keyboard',
    'monkey',
    'spinner',
  ])('%s does not', (key) => {
    expect(isCredentialKey(key)).toBe(false);
    expect(filter('t', { [key]: 'CiAKGjBpNDd2' })).toEqual({ value: { [key]: 'CiAKGjBpNDd2' }, redactions: {} });
  });

  it('redacts strings and numbers under such a key, not booleans, nulls or empty strings', () => {
    const value = { dbPassword: 'hunter2', userPin: 4921, hasPassword: true, apiKey2: null, resetPassword: '' };
    expect(filter('t', value)).toEqual({
      value: { ...value, dbPassword: '[REDACTED:credential]', userPin: '[REDACTED:credential]' },
      redactions: { credential: 2 },
    });
  });
});

/** Random characters of an alphabet, of a given length. */
const chars = (alphabet: string, length: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: length, maxLength: length });
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

const apiKeys = fc.oneof(
  chars(UPPER_DIGITS, 16).map((rest) => `AKIA${rest}`),
  fc
    .tuple(fc.constantFrom('ghp', 'gho', 'ghu', 'ghs', 'ghr'), chars(ALNUM, 36))
    .map(([kind, rest]) => `${kind}_${rest}`),
  chars(`${ALNUM}_`, 82).map((rest) => `github_pat_${rest}`),
  fc
    .tuple(fc.constantFrom('b', 'p', 'a', 's'), chars('0123456789', 12), chars(ALNUM, 24))
    .map(([kind, team, rest]) => `xox${kind}-${team}-${rest}`),
  fc
    .tuple(fc.constantFrom('sk_live_', 'sk_test_', 'rk_live_'), chars(ALNUM, 24))
    .map(([prefix, rest]) => `${prefix}${rest}`),
  chars(`${ALNUM}_-`, 35).map((rest) => `AIza${rest}`),
  fc
    .tuple(fc.constantFrom('sk-', 'sk-proj-', 'sk-ant-api03-'), chars(ALNUM, 40))
    .map(([prefix, rest]) => `${prefix}${rest}`),
);

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = fc
  .tuple(
    fc.constantFrom('HS256', 'RS256', 'ES256', 'EdDSA', 'none'),
    fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.integer(), fc.stringMatching(/^[a-z0-9 ]{0,12}$/))),
    chars(`${ALNUM}_-`, 43),
  )
  .map(
    ([alg, claims, signature]) =>
      `${base64url({ alg, typ: 'JWT' })}.${base64url(claims)}.${alg === 'none' ? '' : signature}`,
  );

describe('API keys, JWTs and bearer tokens', () => {
  const expectRedactedExactly = (kind: string, secret: string, before: string, after: string) => {
    const text = `${before} ${secret} ${after}`;
    expect(filter('t', { note: text })).toEqual({
      value: { note: `${before} [REDACTED:${kind}] ${after}` },
      redactions: { [kind]: 1 },
    });
  };

  it('redacts a generated vendor API key', () => {
    fc.assert(
      fc.property(apiKeys, words, words, (key, before, after) => expectRedactedExactly('api-key', key, before, after)),
      { numRuns: 1000 },
    );
  });

  it('redacts a generated JWT, with any payload', () => {
    fc.assert(
      fc.property(jwt, words, words, (token, before, after) => expectRedactedExactly('jwt', token, before, after)),
      { numRuns: 1000 },
    );
  });

  it('redacts a bearer token with what follows the word, once', () => {
    const token = fc.oneof(jwt, apiKeys, chars(`${ALNUM}._~+/-`, 24));
    fc.assert(
      fc.property(token, fc.constantFrom('Bearer', 'bearer', 'BEARER'), words, words, (secret, word, before, after) =>
        expectRedactedExactly('bearer', `${word} ${secret}`, before, after),
      ),
      { numRuns: 1000 },
    );
  });
});

describe('secrets stay linear', () => {
  it.each([
    ['prefix words before a credential word', `${'a_'.repeat(500_000)}password=x1`],
    ['credential words with nothing after', 'token: '.repeat(140_000)],
    ['query parameters', 'password=a&'.repeat(90_000)],
    ['JWT look-alikes', 'eyJabcd.'.repeat(125_000)],
  ])('scans a megabyte of %s in well under two seconds', (_what, text) => {
    const started = performance.now();
    filter('t', text);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
