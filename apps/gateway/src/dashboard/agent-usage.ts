/**
 * When an agent will run out of today's budget at the pace it has spent so
 * far today (UTC): null when it has spent nothing; `resetsAt` or later means
 * it will not run out before the reset.
 */
export function projectedExhaustion(
  budget: { dailyTokenBudget: number; used: number; resetsAt: string },
  now: number,
): Date | null {
  if (budget.used <= 0) return null;
  const resetsAt = Date.parse(budget.resetsAt);
  const dayStart = resetsAt - 24 * 60 * 60 * 1000;
  const elapsed = Math.max(now - dayStart, 1);
  const left = budget.dailyTokenBudget - budget.used;
  if (left <= 0) return new Date(now);
  return new Date(Math.min(now + (left / budget.used) * elapsed, resetsAt));
}
