import { checkSigningKey } from '../signing-key.js';
import { ConfigError, type ConfigProblem } from '../errors.js';
import {
  ASSERTION_ALGORITHMS,
  DEFAULT_ASSERTION_ISSUER,
  MAX_ASSERTION_LIFETIME_SECONDS,
  type AssertionAlgorithm,
} from '@tollgate/contract';

// The issuer host-kit expects by default, and the lifetime it
// accepts at most (a leaked assertion is worth little for long).
export { DEFAULT_ASSERTION_ISSUER, MAX_ASSERTION_LIFETIME_SECONDS };
export const DEFAULT_ASSERTION_ROTATION_MINUTES = 60;
/** A period shorter than a second would derive keys faster than anyone could fetch them. */
export const MIN_ASSERTION_ROTATION_MINUTES = 1 / 60;

/** How assertions are made; everything but the secret, so a configuration can be checked before the secret is known. */
export interface AssertionSettings {
  /**
   * Default `ES256` (ECDSA on P-256: accepted by more JWT libraries,
   * and cheaper to sign than Ed25519 here); or `EdDSA` (Ed25519).
   */
  algorithm?: AssertionAlgorithm;
  /** The `iss` claim. Default `tollgate`. */
  issuer?: string;
  /** How long one key pair signs; fractions allowed, at least a second (1/60). Default 60. */
  rotationMinutes?: number;
  /** `exp − iat`, a whole number from 1 to 60. Default 60. */
  lifetimeSeconds?: number;
}

export interface GatewayAssertionOptions extends AssertionSettings {
  /**
   * The secret every instance of the gateway shares (`Gw:Jwt:SigningKey`),
   * at least 32 bytes. The assertion keys are derived from it; it is never
   * used to sign assertions itself.
   */
  signingKey: string | Uint8Array;
  /** Injectable for tests. Default `() => new Date()`. */
  clock?: () => Date;
}

export type ResolvedAssertionSettings = Required<AssertionSettings>;

export interface ResolvedAssertionOptions {
  secret: Uint8Array;
  algorithm: AssertionAlgorithm;
  issuer: string;
  periodMs: number;
  lifetimeSeconds: number;
  clock: () => Date;
}

/** Checked and completed with defaults; every problem at once, at `assertion.<setting>`, in a ConfigError. */
export function resolveAssertionSettings(settings: AssertionSettings): ResolvedAssertionSettings {
  const problems = settingsProblems(settings);
  if (problems.length > 0) throw new ConfigError(problems);
  return resolved(settings);
}

/** The settings and the secret, checked together: problems at `signingKey` and `assertion.<setting>`. */
export function resolveAssertionOptions(options: GatewayAssertionOptions): ResolvedAssertionOptions {
  const problems: ConfigProblem[] = [];
  let secret: Uint8Array | undefined;
  try {
    secret = checkSigningKey(options.signingKey);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  problems.push(...settingsProblems(options));
  if (problems.length > 0 || secret === undefined) throw new ConfigError(problems);
  const { algorithm, issuer, rotationMinutes, lifetimeSeconds } = resolved(options);
  return {
    secret,
    algorithm,
    issuer,
    periodMs: Math.round(rotationMinutes * 60_000),
    lifetimeSeconds,
    clock: options.clock ?? (() => new Date()),
  };
}

function resolved(settings: AssertionSettings): ResolvedAssertionSettings {
  return {
    algorithm: settings.algorithm ?? 'ES256',
    issuer: settings.issuer ?? DEFAULT_ASSERTION_ISSUER,
    rotationMinutes: settings.rotationMinutes ?? DEFAULT_ASSERTION_ROTATION_MINUTES,
    lifetimeSeconds: settings.lifetimeSeconds ?? MAX_ASSERTION_LIFETIME_SECONDS,
  };
}

function settingsProblems(settings: AssertionSettings): ConfigProblem[] {
  const { algorithm, issuer, rotationMinutes, lifetimeSeconds } = resolved(settings);
  const problems: ConfigProblem[] = [];
  if (!ASSERTION_ALGORITHMS.includes(algorithm))
    problems.push({ path: 'assertion.algorithm', message: `must be ${ASSERTION_ALGORITHMS.join(' or ')}` });
  if (typeof issuer !== 'string' || issuer.trim() === '')
    problems.push({ path: 'assertion.issuer', message: 'must not be empty' });
  if (!Number.isFinite(rotationMinutes) || rotationMinutes < MIN_ASSERTION_ROTATION_MINUTES) {
    problems.push({
      path: 'assertion.rotationMinutes',
      message: 'must be at least one second (0.0167 minutes); fractions are allowed',
    });
  }
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds < 1 || lifetimeSeconds > MAX_ASSERTION_LIFETIME_SECONDS) {
    problems.push({
      path: 'assertion.lifetimeSeconds',
      message: `must be a whole number from 1 to ${MAX_ASSERTION_LIFETIME_SECONDS}`,
    });
  }
  return problems;
}
