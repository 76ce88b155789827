import { FAILURE_OUTCOMES } from '../error-catalogue.js';
import { InvalidInputError, type InvalidField } from '../errors.js';

/**
 * One line of the audit trail: what happened to one tools/call or one
 * management change. It carries a digest of the arguments and never their
 * values, and never a response body, so the trail can be kept, shipped to a
 * log system and read by operators without becoming a store of customer data.
 */

/**
 * Outcomes of a tools/call, one per way a call can end: success, a cache hit, a question for the user
 * before a write (`input-required`: nothing sent or charged; the
 * retry is audited on its own), or a failure of the catalogue.
 */
export const TOOL_CALL_OUTCOMES = ['ok', 'cache-hit', 'input-required', ...FAILURE_OUTCOMES] as const;

export type ToolCallAuditOutcome = (typeof TOOL_CALL_OUTCOMES)[number];

/** A management change, named `<subject>.<verb>`: `agent.created`, `agent.token-issued`, `tools.refreshed`… */
export type ManagementAuditOutcome = `${string}.${string}`;

export type AuditOutcome = ToolCallAuditOutcome | ManagementAuditOutcome;

export type AuditKind = 'tool-call' | 'management';

/** Which cache tier answered a call; null when the downstream did. */
export type CacheTier = 'exact' | 'semantic';

/** What the trail is told; the store adds the id. */
export interface AuditEntry {
  /** ISO 8601, when the call or change happened. */
  time: string;
  kind: AuditKind;
  /** The calling agent, or for a management change the agent it changed; null when none. */
  agentId: string | null;
  sessionId: string | null;
  tool: string | null;
  outcome: AuditOutcome;
  httpStatus: number | null;
  jsonRpcCode: number | null;
  tokensCharged: number;
  /** Time spent in the gateway, downstream time excluded. */
  gatewayMs: number | null;
  downstreamMs: number | null;
  cacheTier: CacheTier | null;
  downstreamStatus: number | null;
  /** SHA-256 hex of the canonical JSON of the arguments (see `argsDigest`); never the arguments. */
  argsDigest: string | null;
  /** Who made a management change (`admin`, a key id…); null for tool calls. */
  actor: string | null;
  /** The HTTP request that caused it (`X-Request-Id`), to join the trail with logs and traces. */
  requestId: string | null;
  /** A short reason without personal data, at most `MAX_AUDIT_DETAIL_LENGTH` characters. */
  detail: string | null;
  /** For a tools/call of a tool the registry knows: the configured name of the downstream serving it. */
  downstream?: string;
  /**
   * For a tools/call sent to the downstream: the `call_id` of its
   * gateway assertion, so the downstream's logs join the trail.
   */
  callId?: string;
  /**
   * For a tools/call made with an OAuth issuer's token: the issuer, and the identity (`sub`, or the claim the issuer is
   * configured with) it names.
   */
  issuer?: string;
  subject?: string;
  /** For a tools/call an agent in search mode made through `call_tool`: `call_tool` (`tool` is the tool it ran). */
  via?: 'call_tool';
}

export interface AuditRecord extends AuditEntry {
  /**
   * Assigned by the store, increasing in append order (a Redis stream id such
   * as `1718000000000-0`). Also the cursor: pass it as `before` to read on.
   */
  id: string;
}

export const MAX_AUDIT_DETAIL_LENGTH = 200;

export interface AuditQuery {
  /** Only this agent's records; omitted = every agent (admin view). */
  agentId?: string;
  tool?: string;
  outcome?: string;
  /** Cursor: only records older than this id (a `nextCursor` or a record id). */
  before?: string;
  /** Page size, 1 to `MAX_AUDIT_PAGE_SIZE`. */
  limit: number;
}

export interface AuditPage {
  /** Newest first. */
  records: AuditRecord[];
  /** Pass as `before` for the next page; null when there is none. */
  nextCursor: string | null;
}

export const MAX_AUDIT_PAGE_SIZE = 500;

/**
 * A cursor is a record id: `<milliseconds>-<sequence>`. Sixteen digits a part
 * keep each part below 2^64 (Redis refuses more); `0-0` (in any spelling) is
 * no record's id, and nothing can come before it, so Redis refuses it as an
 * exclusive end: it is not a cursor either.
 */
const CURSOR = /^\d{1,16}-\d{1,16}$/;
const ZERO_ID = /^0+-0+$/;

export function isAuditCursor(value: string): boolean {
  return CURSOR.test(value) && !ZERO_ID.test(value);
}

/**
 * Refuses a query no adapter can answer: a limit outside 1..MAX_AUDIT_PAGE_SIZE
 * or a cursor that is not a record id. Every adapter calls it; the HTTP layer
 * may call it first to answer 400 in the spec's shape.
 */
export function checkAuditQuery(query: AuditQuery): void {
  const fields: InvalidField[] = [];
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_AUDIT_PAGE_SIZE) {
    fields.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_AUDIT_PAGE_SIZE}` });
  }
  if (query.before !== undefined && !isAuditCursor(query.before)) {
    fields.push({ path: 'before', message: 'must be a cursor returned by a previous page' });
  }
  if (fields.length > 0) throw new InvalidInputError('Invalid audit query', fields);
}

/** Whether a record passes the query's filters (the cursor and limit aside). */
export function matchesAuditQuery(record: AuditEntry, query: AuditQuery): boolean {
  return (
    (query.agentId === undefined || record.agentId === query.agentId) &&
    (query.tool === undefined || record.tool === query.tool) &&
    (query.outcome === undefined || record.outcome === query.outcome)
  );
}

/**
 * Orders record ids (`<ms>-<seq>`) numerically; string order is wrong once
 * lengths differ, and Number is inexact past 2^53 (a cursor may have 16 digits).
 */
export function compareAuditIds(a: string, b: string): number {
  const [aMs = '', aSeq = ''] = a.split('-');
  const [bMs = '', bSeq = ''] = b.split('-');
  return compareDigits(aMs, bMs) || compareDigits(aSeq, bSeq);
}

/** Compares two runs of decimal digits as the numbers they spell, at any length. */
function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The millisecond part of a record id: when the store appended it. */
export function auditIdMs(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}
