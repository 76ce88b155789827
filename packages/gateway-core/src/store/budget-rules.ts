/**
 * The arithmetic both ledger adapters share. The Redis adapter repeats it in
 * Lua (it must run inside the script to stay atomic); the contract suite
 * holds the two to the same results.
 */

export function assertTokenCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

/**
 * How much to grant out of `available`: `wanted` when it fits, else what is
 * left as long as it reaches `minimum`, else nothing (0).
 */
export function grantFor(available: number, wanted: number, minimum: number): number {
  const grant = Math.min(wanted, Math.max(available, 0));
  return grant > 0 && grant >= minimum ? grant : 0;
}

export interface ReserveArguments {
  dailyBudget: number;
  wanted: number;
  minimum: number;
}

export function checkReserveArguments(
  dailyBudget: number,
  wanted: number,
  minimum: number | undefined,
): ReserveArguments {
  assertTokenCount('dailyBudget', dailyBudget);
  assertTokenCount('wanted', wanted);
  const min = minimum ?? wanted;
  assertTokenCount('minimum', min);
  if (wanted === 0) throw new RangeError('wanted must be at least 1 token');
  if (min > wanted) throw new RangeError(`minimum (${min}) must not exceed wanted (${wanted})`);
  return { dailyBudget, wanted, minimum: Math.max(min, 1) };
}

/**
 * Why a reservation got nothing: `exhausted` when the settled tokens alone
 * leave less than `minimum` (nothing in flight can change that), `held` when
 * reservations of calls in flight hold the room that is left.
 */
export function refusalFor(dailyBudget: number, used: number, minimum: number): 'exhausted' | 'held' {
  return dailyBudget - used < minimum ? 'exhausted' : 'held';
}
