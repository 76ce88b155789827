import { randomBytes } from 'node:crypto';
import { nextUtcMidnight, utcDay } from '../../time.js';
import { assertTokenCount, checkReserveArguments } from '../budget-rules.js';
import { FreedListeners } from '../freed-listeners.js';
import type { BudgetLedger, BudgetUsage, Reservation, ReserveOptions, ReserveResult } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';
import { LuaScript } from './scripts.js';
import { sendUntilAnswered } from './until-answered.js';
import { StoreUnavailableError } from '../../errors.js';

/*
 * One hash per agent per UTC day: `used` holds settled tokens and each open
 * reservation is a field `r:<id>` = `<granted>:<expiresAtMs>`. Every change
 * is one Lua script, so concurrent calls on any number of gateway instances
 * see the ledger one operation at a time and can never spend past the budget.
 * The hash expires a day after its own day ends: yesterday's calls can still
 * settle just after midnight, and nothing needs cleaning up.
 *
 * A RESERVE that got no answer in time (a frozen or unreachable Redis) may
 * still run later; the call that sent it has failed by then and will never
 * settle it. So it is given back (ABANDON) until Redis answers, and the give-
 * back works in either order: it removes the reservation if it landed, or
 * leaves a 0-token marker under its id that makes the late RESERVE refuse.
 */

// Sums live reservations and drops lapsed ones. Shared by reserve and usage.
const HELD = `
local function held_tokens(key, now, drop)
  local used, held = 0, 0
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do
    local name, value = fields[i], fields[i + 1]
    if name == 'used' then
      used = tonumber(value)
    else
      local granted, expires_at = string.match(value, '^(%d+):(%d+)$')
      if tonumber(expires_at) <= now then
        if drop then redis.call('HDEL', key, name) end
      else
        held = held + tonumber(granted)
      end
    end
  end
  return used, held
end
`;

// ARGV: dailyBudget, wanted, minimum, nowMs, reservationField, expiresAtMs, keyTtlMs
// Returns {granted, remaining, exhausted}: on a refusal, exhausted = 1 when the settled tokens alone
// leave less than the minimum, 0 when calls in flight hold the room (budget-rules.ts refusalFor).
// The field exists before its reservation only when ABANDON ran first: the caller gave up on this
// reservation, so it is not made (and its marker has done its job).
const RESERVE = new LuaScript(`${HELD}
if redis.call('HDEL', KEYS[1], ARGV[5]) == 1 then return {0, 0, 0} end
local budget, wanted, minimum = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local used, held = held_tokens(KEYS[1], tonumber(ARGV[4]), true)
local available = budget - used - held
local grant = math.min(wanted, math.max(available, 0))
if grant <= 0 or grant < minimum then
  local exhausted = 0
  if budget - used < minimum then exhausted = 1 end
  return {0, math.max(available, 0), exhausted}
end
redis.call('HSET', KEYS[1], ARGV[5], string.format('%d:%s', grant, ARGV[6]))
redis.call('PEXPIRE', KEYS[1], ARGV[7])
return {grant, available - grant}
`);

// ARGV: nowMs
const USAGE = new LuaScript(`${HELD}
local used, held = held_tokens(KEYS[1], tonumber(ARGV[1]), false)
return {used, held}
`);

// ARGV: reservationField, usedTokens. Removing the field first is what makes a second settle a no-op.
const SETTLE = new LuaScript(`
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
local granted = tonumber(string.match(value, '^(%d+):'))
redis.call('HINCRBY', KEYS[1], 'used', math.min(tonumber(ARGV[2]), granted))
return 1
`);

// ARGV: reservationField, expiresAtMs, keyTtlMs. For a reservation whose caller gave up waiting for
// RESERVE's answer: removes it if it landed; otherwise leaves a marker of 0 tokens, lapsing when the
// reservation would have, that makes a RESERVE landing later refuse. Either order ends with nothing held.
const ABANDON = new LuaScript(`
if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then return 1 end
redis.call('HSET', KEYS[1], ARGV[1], '0:' .. ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 0
`);

// ARGV: keyTtlMs
const RESET = new LuaScript(`
redis.call('HSET', KEYS[1], 'used', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`);

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Reservation ids: 96 random bits per process, then a counter. Unique across
 * instances as a random UUID would be, without drawing randomness per call,
 * and shorter on the wire (each id travels twice: reserve and settle).
 */
const ID_PREFIX = `${randomBytes(12).toString('base64url')}.`;
let idCounter = 0;

function nextReservationId(): string {
  return ID_PREFIX + (idCounter++).toString(36);
}

export class RedisBudgetLedger implements BudgetLedger {
  readonly #freed = new FreedListeners();

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly reservationTtlMs: number,
  ) {}

  async reserve(
    agentId: string,
    dailyBudget: number,
    wanted: number,
    now: Date,
    options: ReserveOptions = {},
  ): Promise<ReserveResult> {
    const args = checkReserveArguments(dailyBudget, wanted, options.minimum);
    const day = utcDay(now);
    const id = nextReservationId();
    const key = this.keys.budgetDay(agentId, day);
    const expiresAtMs = now.getTime() + this.reservationTtlMs;
    let reply: [number, number, number?];
    try {
      reply = (await command(
        this.client,
        () =>
          RESERVE.run(
            this.client,
            [key],
            [args.dailyBudget, args.wanted, args.minimum, now.getTime(), field(id), expiresAtMs, keyTtlMs(now)],
          ),
        key,
      )) as [number, number, number?];
    } catch (error) {
      // No answer (a timeout, a dropped connection): the script may still run, now or when a frozen Redis wakes up.
      // Past the reservation's lifetime (by this process's clock: `now` may be any date) it lapses by itself.
      if (error instanceof StoreUnavailableError)
        void sendUntilAnswered(() => this.#abandon(key, id, expiresAtMs, now), Date.now() + this.reservationTtlMs);
      throw error;
    }
    const [granted, remaining, exhausted] = reply;
    if (granted === 0) return { ok: false, remaining, reason: exhausted === 1 ? 'exhausted' : 'held' };
    return { ok: true, reservation: { agentId, day, id, granted }, remaining };
  }

  async settle(reservation: Reservation, used: number): Promise<boolean> {
    assertTokenCount('used', used);
    const key = this.keys.budgetDay(reservation.agentId, reservation.day);
    const settled =
      (await command(this.client, () => SETTLE.run(this.client, [key], [field(reservation.id), used]), key)) === 1;
    if (settled) this.#freed.emit(reservation.agentId);
    return settled;
  }

  async release(reservation: Reservation): Promise<boolean> {
    const key = this.keys.budgetDay(reservation.agentId, reservation.day);
    const released = (await command(this.client, () => this.client.hDel(key, field(reservation.id)), key)) === 1;
    if (released) this.#freed.emit(reservation.agentId);
    return released;
  }

  async usage(agentId: string, now: Date): Promise<BudgetUsage> {
    const day = utcDay(now);
    const key = this.keys.budgetDay(agentId, day);
    const [used, reserved] = (await command(
      this.client,
      () => USAGE.run(this.client, [key], [now.getTime()]),
      key,
    )) as [number, number];
    return { day, used, reserved };
  }

  async reset(agentId: string, now: Date): Promise<void> {
    const key = this.keys.budgetDay(agentId, utcDay(now));
    await command(this.client, () => RESET.run(this.client, [key], [keyTtlMs(now)]), key);
    this.#freed.emit(agentId);
  }

  async #abandon(key: string, id: string, expiresAtMs: number, now: Date): Promise<void> {
    await command(this.client, () => ABANDON.run(this.client, [key], [field(id), expiresAtMs, keyTtlMs(now)]), key);
  }

  /** This instance's own writes only; other instances' settlements are found by reserving again. */
  onFreed(agentId: string, listener: () => void): () => void {
    return this.#freed.on(agentId, listener);
  }
}

/** The hash field of a reservation; `used` can never collide with it. */
function field(reservationId: string): string {
  return `r:${reservationId}`;
}

/**
 * Relative, so it is right for any injected `now`: the day's hash lives until
 * one day after the day ends.
 */
function keyTtlMs(now: Date): number {
  return nextUtcMidnight(now).getTime() + DAY_MS - now.getTime();
}
