import { ASSERTION_ALGORITHMS, MAX_ASSERTION_LIFETIME_SECONDS } from '@tollgate/contract';
import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { GatewayCaller } from './caller.js';
import { GatewayKeysUnavailable } from './key-source.js';
import type { ReplayCache } from './replay-cache.js';

/** Why an assertion was refused: for the application's log, never for the caller. */
export type RefusalReason =
  | 'missing'
  | 'malformed'
  | 'algorithm'
  | 'signature'
  | 'unknown-key'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'lifetime'
  | 'claims'
  | 'tool'
  | 'replayed'
  | 'keys-unavailable';

export type AssertionCheck = { ok: true; caller: GatewayCaller } | { ok: false; reason: RefusalReason; detail: string };

export interface AssertionRules {
  keys: JWTVerifyGetKey;
  audience: string | string[];
  issuer: string;
  clockToleranceSeconds: number;
  replays: ReplayCache;
  /** Injectable for tests. */
  clock: () => Date;
}

/**
 * Checks one assertion for the route of `tool`: signature by a published
 * key with a pinned algorithm, issuer, audience, expiry, a lifetime of a
 * minute at most, the tool, and that its id was not used before. The id is
 * remembered only once everything else passed.
 */
export async function checkAssertion(token: string, tool: string, rules: AssertionRules): Promise<AssertionCheck> {
  const now = rules.clock();
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, rules.keys, {
      // Anything else (none, HS256, RS256) is refused before any key is looked up.
      algorithms: [...ASSERTION_ALGORITHMS],
      issuer: rules.issuer,
      audience: rules.audience,
      clockTolerance: rules.clockToleranceSeconds,
      maxTokenAge: MAX_ASSERTION_LIFETIME_SECONDS,
      requiredClaims: ['exp', 'iat', 'sub', 'jti', 'tool', 'call_id'],
      currentDate: now,
    }));
  } catch (error) {
    return refusal(error);
  }
  const {
    sub,
    jti,
    tool: asserted,
    call_id: callId,
    scope,
    exp,
    iat,
  } = payload as JWTPayload & Record<string, unknown>;
  if (
    !isText(sub) ||
    !isText(jti) ||
    !isText(asserted) ||
    !isText(callId) ||
    (scope !== undefined && !isScopeList(scope))
  ) {
    return {
      ok: false,
      reason: 'claims',
      detail:
        'sub, jti, tool and call_id must be non-empty strings, scope RFC 6749 scope tokens separated by single spaces',
    };
  }
  if (exp! - iat! > MAX_ASSERTION_LIFETIME_SECONDS)
    return {
      ok: false,
      reason: 'lifetime',
      detail: `lives ${exp! - iat!} s, more than ${MAX_ASSERTION_LIFETIME_SECONDS}`,
    };
  if (asserted !== tool)
    return { ok: false, reason: 'tool', detail: `asserts tool ${asserted}, the route is tool ${tool}` };
  // Kept past exp by the tolerance, since it is accepted that long.
  if (!rules.replays.firstUse(jti, exp! + rules.clockToleranceSeconds, Math.floor(now.getTime() / 1000))) {
    return { ok: false, reason: 'replayed', detail: `jti ${jti} was used before` };
  }
  return { ok: true, caller: { agentId: sub, scopes: scope ? scope.split(' ') : [], tool: asserted, callId } };
}

/**
 * RFC 6749 3.3: `scope-token *( SP scope-token )`, scope-token =
 * 1*( %x21 / %x23-5B / %x5D-7E ); or empty. Anything else (a newline, a tab,
 * NUL, two spaces) could be split into other scopes than were granted, so
 * the assertion is refused rather than read generously.
 */
const SCOPE_LIST = /^(?:[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*)?$/;

function isScopeList(value: unknown): value is string {
  return typeof value === 'string' && SCOPE_LIST.test(value);
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function refusal(error: unknown): AssertionCheck {
  const detail = error instanceof Error ? error.message : String(error);
  return { ok: false, reason: reasonOf(error), detail };
}

function reasonOf(error: unknown): RefusalReason {
  if (error instanceof GatewayKeysUnavailable) return 'keys-unavailable';
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'algorithm';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return 'unknown-key';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'issuer';
    if (error.claim === 'aud') return 'audience';
    return 'claims';
  }
  return 'malformed';
}
