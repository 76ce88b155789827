import type { CachePeek, SemanticCache } from '../cache/semantic-cache.js';
import type { AgentRecord, BudgetLedger, RateLimiter } from '../store/ports.js';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.js';
import { AgentConcurrency, type LeaveCall } from './agent-concurrency.js';
import { EarlyRateLimits, type EarlyRateTake } from './early-rate-limit.js';
import { EarlyReservations, type EarlyReservation } from './early-reservation.js';
import type { Settlements } from './settlement-queue.js';

/**
 * A tools/call's pre-flight, started alongside authentication so that its
 * store commands share that round trip: the tool its name resolves to
 * (looked up once, for the checks before the pipeline and the pipeline's
 * own), the agent's place among its calls in flight, and the budget
 * reservation, rate-limit take and exact-tier cache read that the
 * pipeline's steps use if the call gets that far. `release` gives back
 * whatever no step took, however the call ended.
 */
export class PreparedCall {
  #leave: LeaveCall | null;

  constructor(
    /** The registry's tool the call names; undefined for a name it does not know (caller input, never recorded). */
    readonly tool: RegisteredTool | undefined,
    /** Used by the budget step when it was sized on the agent's current budget and the tool's cap. */
    readonly reservation: EarlyReservation | null,
    /** Judged by the limits step when it was taken on the agent's current limit. */
    readonly rateTake: EarlyRateTake | null,
    /** Used by the cache step only once every check has passed. */
    readonly cachePeek: CachePeek | null,
    leave: LeaveCall,
  ) {
    this.#leave = leave;
  }

  /** The tool's name when the registry knows it: what the audit record may name. */
  get toolName(): string | null {
    return this.tool === undefined ? null : this.tool.definition.name;
  }

  /** The call ended: gives back what no step took, and the agent's place. Calling it again does nothing. */
  release(): void {
    const leave = this.#leave;
    if (leave === null) return;
    this.#leave = null;
    // Taken by their steps already, these do nothing.
    this.reservation?.abandon();
    this.rateTake?.abandon();
    leave();
  }
}

/** What preparing a call needs of the pipeline's dependencies (`ToolCallDeps` has them all). */
export interface CallPreparationDeps {
  registry: () => ToolRegistry;
  budget: BudgetLedger;
  settlements?: Settlements;
  rateLimiter?: RateLimiter;
  cache?: SemanticCache;
  clock?: () => Date;
}

/**
 * Prepares tools/call requests (see `PreparedCall`). An agent's budget and
 * rate limit are only known once its record is read: the ones seen on its
 * previous call (`remember`) let the next call's reservation and take
 * leave with that read.
 */
export class CallPreparation {
  readonly #deps: CallPreparationDeps;
  readonly #concurrency: AgentConcurrency;
  readonly #reservations: EarlyReservations;
  readonly #rateTakes: EarlyRateLimits | null;

  /** Throws a RangeError for a `maxConcurrentCallsPerAgent` that is not a whole number, 0 or more. */
  constructor(deps: CallPreparationDeps, maxConcurrentCallsPerAgent?: number) {
    this.#deps = deps;
    this.#concurrency = new AgentConcurrency(maxConcurrentCallsPerAgent);
    const { budget, settlements, clock, rateLimiter } = deps;
    this.#reservations = new EarlyReservations({ ledger: budget, settlements, clock });
    this.#rateTakes = rateLimiter ? new EarlyRateLimits({ limiter: rateLimiter, clock }) : null;
  }

  /** Remembers the agent's budget and rate limit, for its next call. */
  remember(agent: AgentRecord): void {
    this.#reservations.remember(agent);
    this.#rateTakes?.remember(agent);
  }

  /**
   * Takes one of the agent's places (throws TooManyCallsError when it has
   * none left, before anything is reserved or read: a call past the limit
   * costs nothing), resolves the tool and starts the reservation, take and
   * cache read. Nothing is started for a tool the registry does not know.
   */
  prepare(agentId: string, name: unknown, args: unknown): PreparedCall {
    const leave = this.#concurrency.enter(agentId);
    const tool = toolNamed(this.#deps.registry(), name);
    if (tool === undefined) return new PreparedCall(undefined, null, null, null, leave);
    return new PreparedCall(
      tool,
      this.#reservations.start(agentId, tool.definition.maxResponseTokens),
      this.#rateTakes?.start(agentId) ?? null,
      this.#peekCache(agentId, tool, args),
      leave,
    );
  }

  /**
   * The name of the registry's tool called `name`, or null: for the record of a call refused before it was prepared.
   */
  knownToolName(name: unknown): string | null {
    return toolNamed(this.#deps.registry(), name)?.definition.name ?? null;
  }

  /** The exact-tier read, so a hit needs no round trip of its own (see `SemanticCache.peek`). */
  #peekCache(agentId: string, tool: RegisteredTool, args: unknown): CachePeek | null {
    const cache = this.#deps.cache;
    if (!cache || typeof args !== 'object' || args === null || Array.isArray(args)) return null;
    return cache.peek(tool.definition, args as Record<string, unknown>, agentId);
  }
}

/** The registry's tool by that name, if the name is a string it knows. */
export function toolNamed(registry: ToolRegistry, name: unknown): RegisteredTool | undefined {
  return typeof name === 'string' ? registry.get(name) : undefined;
}
