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
