import type { FailureOutcome } from '../error-catalogue.js';

/**
 * How a dashboard groups outcomes: what went through, what the gateway
 * refused on purpose (budget, rate, scope, write guard), what the agent got
 * wrong, what the downstream failed at, and what the gateway itself failed at.
 */
export const OUTCOME_CLASSES = [
  'success',
  'refusal',
  'agent-mistake',
  'downstream-failure',
  'gateway-failure',
  'cancelled',
] as const;

export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

/** People's words for each class, for tables and chart legends. */
export const OUTCOME_CLASS_LABELS: Readonly<Record<OutcomeClass, string>> = {
  success: 'Succeeded',
  refusal: 'Refused (budget, rate, scope, write)',
  'agent-mistake': 'Agent mistakes (unknown tool, invalid arguments)',
  'downstream-failure': 'Downstream failures',
  'gateway-failure': 'Gateway failures',
  cancelled: 'Cancelled by the client',
};

const CLASS_OF: Readonly<Record<'ok' | 'cache-hit' | 'input-required' | FailureOutcome, OutcomeClass>> = {
  ok: 'success',
  'cache-hit': 'success',
  // A write held for the user's confirmation: nothing went through (its confirmed retry is a call of its own).
  'input-required': 'refusal',
  'not-confirmed': 'refusal',
  unauthorized: 'refusal',
  forbidden: 'refusal',
  'not-allowlisted': 'refusal',
  'write-blocked': 'refusal',
  'budget-exhausted': 'refusal',
  'rate-limited': 'refusal',
  'too-many-calls': 'refusal',
  'invalid-arguments': 'agent-mistake',
  'unknown-tool': 'agent-mistake',
  'invalid-request': 'agent-mistake',
  'circuit-open': 'downstream-failure',
  overloaded: 'downstream-failure',
  'downstream-error': 'downstream-failure',
  'store-unavailable': 'gateway-failure',
  unavailable: 'gateway-failure',
  'internal-error': 'gateway-failure',
  'client-gone': 'cancelled',
};

/** The class of an audit outcome; one the table does not know is a gateway failure (never dropped). */
export function outcomeClass(outcome: string): OutcomeClass {
  return (CLASS_OF as Record<string, OutcomeClass | undefined>)[outcome] ?? 'gateway-failure';
}
