/**
 * Field names whose values are redacted whatever they hold. Matched exactly
 * after normalizing (see `normalizeFieldName`), never as substrings: a
 * substring rule on `token` would also hide `nextPageToken`, the cursor an
 * agent needs to read the next page, and `tokenCount`.
 */
export const DEFAULT_REDACTED_FIELDS: readonly string[] = [
  // Credentials
  'password',
  'passwd',
  'passphrase',
  'secret',
  'clientSecret',
  'apiSecret',
  'privateKey',
  'apiKey',
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'sessionToken',
  'authToken',
  'authorization',
  'cookie',
  // Personal identifiers
  'ssn',
  'socialSecurityNumber',
  'dateOfBirth',
  'dob',
  'birthDate',
  // Payment
  'creditCard',
  'cardNumber',
  'cvv',
  'cvc',
  'iban',
];

/**
 * `date_of_birth`, `dateOfBirth`, `Date-Of-Birth` and `DATEOFBIRTH` are one
 * name: lower case, with everything but letters and digits removed.
 */
export function normalizeFieldName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * What a key's name says its value is, for values whose shape alone is not
 * enough: a bare number of phone length is far more often an id or a
 * timestamp, nine bare digits are mostly not an SSN. Under such a key the
 * value's shape is checked with looser rules (see `hinted-values.ts`).
 */
export type KeyHint = 'card' | 'phone' | 'ssn';

const HINT_WORDS: Readonly<Record<KeyHint, readonly string[]>> = {
  card: [
    'card',
    'cc',
    'ccn',
    'pan',
    'creditcard',
    'debitcard',
    'cardnumber',
    'cardnum',
    'cardno',
    'ccnumber',
    'ccnum',
    'ccno',
  ],
  phone: [
    'phone',
    'telephone',
    'tel',
    'mobile',
    'cell',
    'cellphone',
    'fax',
    'msisdn',
    'phonenumber',
    'mobilenumber',
    'whatsapp',
  ],
  ssn: ['ssn', 'socialsecurity', 'socialsecuritynumber', 'socialsecurityno'],
};

const HINT_BY_WORD = new Map(
  Object.entries(HINT_WORDS).flatMap(([hint, words]) => words.map((word) => [word, hint as KeyHint] as const)),
);

/** Words after the hint word that still name the value itself: `phoneNumber`, `cc_no`. */
const VALUE_WORDS = new Set(['number', 'num', 'no', 'nr', 'digits', 'value', 'e164']);

const WORD = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g;

function hintOfWord(word: string | undefined): KeyHint | undefined {
  if (word === undefined) return undefined;
  return HINT_BY_WORD.get(word) ?? (word.endsWith('s') ? HINT_BY_WORD.get(word.slice(0, -1)) : undefined);
}

/**
 * The hint a key gives, from its words (camelCase, snake_case, kebab-case):
 * the last word, or the two last joined, must be a hint word, optionally
 * followed by a value word. So `cc`, `homePhone`, `phone_numbers`,
 * `creditCardNumber`, `customer_ssn` and `social_security_number` hint, while
 * `cardId`, `phoneVerified`, `phoneCount` and `account` (no `cc` word) do not:
 * they name something about the card or phone, not its number.
 */
export function keyHint(key: string): KeyHint | undefined {
  const words = (key.match(WORD) ?? []).map((word) => word.toLowerCase());
  if (words.length > 1 && VALUE_WORDS.has(words.at(-1) as string)) words.pop();
  const last = words.at(-1);
  return hintOfWord(last) ?? (words.length > 1 ? hintOfWord(`${words.at(-2)}${last}`) : undefined);
}

/** Last words (or two last words joined) of a key that name a credential. */
const CREDENTIAL_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'pin',
  'secret',
  'apikey',
  'accesskey',
  'secretkey',
  'privatekey',
  'signingkey',
  'encryptionkey',
  'masterkey',
  'clientsecret',
  'apisecret',
  'credential',
  'credentials',
]);

/** Words before `token` that make it a cursor or a count, not a secret. */
const NOT_SECRET_TOKENS = new Set([
  'page',
  'next',
  'prev',
  'previous',
  'continuation',
  'cursor',
  'sync',
  'resume',
  'max',
  'min',
  'input',
  'output',
  'prompt',
  'completion',
  'total',
  'cancellation',
]);

/**
 * Whether a key names a credential by its last word(s), so its value is
 * redacted whatever it looks like: `dbPassword`, `x-api-key`,
 * `AWS_SECRET_ACCESS_KEY`, `githubToken`, `client_secret`. Unlike the exact
 * field names this reaches keys nobody listed; `nextPageToken`, `maxTokens`,
 * `passwordHint` and `secretName` name something else and are left alone.
 */
export function isCredentialKey(key: string): boolean {
  const words = (key.match(WORD) ?? []).map((word) => word.toLowerCase());
  const last = words.at(-1);
  if (last === undefined) return false;
  if (last === 'token' || last === 'tokens')
    return words.length === 1 || !NOT_SECRET_TOKENS.has(words.at(-2) as string);
  return CREDENTIAL_WORDS.has(last) || (words.length > 1 && CREDENTIAL_WORDS.has(`${words.at(-2)}${last}`));
}
