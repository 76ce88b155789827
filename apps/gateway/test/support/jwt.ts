import { TokenService } from '@tollgate/gateway-core';
import { TEST_SIGNING_KEY } from './processes.js';

/** The payload of a JWT, read without verifying it: what a client could see. */
export function decodeJwtPayload(token: string): Record<string, unknown> {
  const [, payload] = token.split('.');
  if (!payload) throw new Error(`not a JWT: ${token}`);
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** An admin token signed with the gateway's own key that expired an hour ago. */
export function expiredAdminToken(): Promise<string> {
  const issuer = new TokenService({
    signingKey: TEST_SIGNING_KEY,
    clock: () => new Date(Date.now() - DAY_MS - 60 * 60 * 1000),
  });
  return issuer.issueAdminToken({ expiresInDays: 1 }).then((issued) => issued.token);
}

/** A well-formed admin token signed with a key the gateway does not know. */
export function foreignAdminToken(): Promise<string> {
  const issuer = new TokenService({ signingKey: 'some-other-signing-key-of-at-least-32-bytes' });
  return issuer.issueAdminToken({ expiresInDays: 1 }).then((issued) => issued.token);
}

/** Base64url of a JSON value, as a JWT segment. */
export function jwtSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * A JWT assembled by hand: `sign` receives the signing input
 * (`header.payload`) and returns the signature bytes, so tests can forge
 * any algorithm, claim set or broken signature.
 */
export function forgeJwt(header: object, payload: object, sign: (input: string) => Buffer | string): string {
  const input = `${jwtSegment(header)}.${jwtSegment(payload)}`;
  const signature = sign(input);
  return `${input}.${typeof signature === 'string' ? signature : signature.toString('base64url')}`;
}
