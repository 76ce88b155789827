// How one tools/call ended, and what the audit trail learns of it either way.
import type { CacheTier } from '../store/audit-records.js';
import type { InputRequiredResult } from '../protocol/input-required.js';
import type { ToolCallResult } from '../protocol/tool-result.js';

/** What the audit trail needs of a call, whichever way it ended; null where the call never got that far. */
export interface ToolCallFacts {
  /** The tool called, once the registry knows the name (any other name is caller input, never recorded). */
  tool: string | null;
  /** The downstream serving that tool, when the registry says which (see `ToolOrigin`). */
  downstream?: string;
  /**
   * Set once the call is sent to the downstream: the id its gateway assertion names (`call_id`), whatever the retries.
   */
  callId?: string;
  argsDigest: string | null;
  cacheTier: CacheTier | null;
  downstreamStatus: number | null;
  downstreamMs: number | null;
  tokensCharged: number;
  /**
   * What the downstream answered with its error status, privacy-filtered and
   * capped like any answer (and, like a failed call, not charged), as text;
   * null when the call did not fail that way or the answer was empty.
   */
  downstreamAnswer: string | null;
}

export interface ToolCallSuccess extends ToolCallFacts {
  ok: true;
  result: ToolCallResult;
  /**
   * Set when the call waits for the user's confirmation (MCP 2026-07-28): the question to answer with
   * instead of `result` (then empty). Nothing was sent, reserved or charged.
   */
  question?: InputRequiredResult;
  truncated: boolean;
}

export interface ToolCallFailure extends ToolCallFacts {
  ok: false;
  /** A GatewayError of the catalogue, or an unexpected error. */
  error: unknown;
}

/** The facts of a call that ended before any were learnt (a refusal before the pipeline started, a search). */
export const NOTHING_LEARNT = {
  tool: null,
  argsDigest: null,
  cacheTier: null,
  downstreamStatus: null,
  downstreamMs: null,
  tokensCharged: 0,
  downstreamAnswer: null,
} satisfies ToolCallFacts;

/** How one tools/call ended: never thrown, so its facts reach the audit trail either way. */
export type ToolCallReport = ToolCallSuccess | ToolCallFailure;
