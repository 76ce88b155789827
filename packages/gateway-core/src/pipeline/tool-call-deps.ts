// What one tools/call is given: the gateway's parts, the caller, and the name and arguments asked for.
import type { BudgetLedger, AgentRecord, RateLimiter } from '../store/ports.js';
import type { SemanticCache } from '../cache/semantic-cache.js';
import type { Forwarder } from '../forward/forwarder.js';
import type { ProtocolVersion } from '../protocol/protocol-version.js';
import type { ToolCallResult } from '../protocol/tool-result.js';
import type { InputRequiredResult } from '../protocol/input-required.js';
import type { LargeAnswers } from '../answer/large-answers.js';
import type { ToolDefinition } from '../tools/definition.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { BudgetAdmission } from './budget-admission.js';
import type { Settlements } from './settlement-queue.js';

/** Filters a downstream response before anyone sees, counts, caches or logs it. */
export interface ResponseFilter {
  filter(toolName: string, value: unknown): { value: unknown };
}

export interface ToolCallDeps {
  /** The current registry; read per call so a refresh never disturbs calls in flight. */
  registry: () => ToolRegistry;
  budget: BudgetLedger;
  /** Where agents' rate limits (`AgentRecord.rateLimit`) are counted; absent, they are not enforced. */
  rateLimiter?: RateLimiter;
  /**
   * Given, the reservation is settled (or released) after the reply instead
   * of before it: one store round trip less for the agent to wait for.
   * Absent, the call waits for the ledger.
   */
  settlements?: Settlements;
  /** Waits for calls in flight when they hold what is left of a budget; absent, one per ledger with its defaults. */
  admission?: BudgetAdmission;
  forwarder: Forwarder;
  privacy?: ResponseFilter;
  /**
   * Where answers above its threshold are decoded, filtered and capped (a
   * worker thread), so their JSON never holds the event loop. Absent, a
   * large answer is processed in-thread like any other.
   */
  largeAnswers?: LargeAnswers;
  cache?: SemanticCache;
  /**
   * HMAC key for the audit digest of the arguments. Keyed, because a plain
   * hash of a low-entropy argument (a customer id, an SSN) can be reversed
   * by trying every value.
   */
  argsDigestKey?: Buffer;
  clock?: () => Date;
}

/**
 * Whether a call must wait for the user's confirmation: null at once for a call that needs none (no await on
 * the hot path), else a promise of null to go on or of the question to answer with.
 */
export type ConfirmationGate = (tool: ToolDefinition, args: unknown) => Promise<InputRequiredResult | null> | null;

export interface ToolCallContext {
  agent: AgentRecord;
  /** Scopes of the token presented (contract 5 rule 6); a required scope must also be in `agent.scopes`. */
  tokenScopes: readonly string[];
  /** The token is an OAuth issuer's, whose client may step up to more scopes (see `ToolCaller`). */
  canStepUp?: boolean;
  protocolVersion: ProtocolVersion;
  signal?: AbortSignal;
  /**
   * Called with an answer before it is charged, when its delivery is not the
   * reply's alone (a resumable stream): false means nobody will read it (the
   * client left and the store refused to keep it for a resume), so it is not
   * charged and the call ends client-gone: kept or not charged, never both
   * lost and charged.
   */
  keepAnswer?: (result: ToolCallResult) => Promise<boolean>;
  /**
   * Write confirmation (mcp/write-confirmation.ts), run once the call is authorized and its arguments
   * valid: an InputRequiredResult ends the call there, before anything is rate-limited, reserved or sent.
   */
  confirm?: ConfirmationGate;
}

export interface ToolCallParams {
  name: unknown;
  arguments?: unknown;
}
