/** Small pieces shared by several pages. */

const NUMBER = new Intl.NumberFormat('en-US');

export const formatNumber = (value: number) => NUMBER.format(value);

/** ISO time shown in UTC, which is also the day the budgets roll over on. */
export function Time({ iso }: { iso: string }) {
  return <time datetime={iso}>{iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}</time>;
}

export type Health = 'ok' | 'warn' | 'danger';

export function Badge({ health, children }: { health: Health; children?: unknown }) {
  return <span class={`badge ${health}`}>{children as string}</span>;
}

/** Share of the budget at which the bar turns amber, and red. */
const WARN_SHARE = 0.8;
const DANGER_SHARE = 0.95;

export function usageHealth(used: number, budget: number): Health {
  if (budget <= 0) return used > 0 ? 'danger' : 'ok';
  const share = used / budget;
  return share >= DANGER_SHARE ? 'danger' : share >= WARN_SHARE ? 'warn' : 'ok';
}

/**
 * Today's budget usage as a native progress bar (announced by assistive
 * technology, no inline style needed under the CSP). The numbers are in the
 * text next to it, and the warning is in words too, never in colour only.
 */
export function BudgetBar({ id, used, budget }: { id: string; used: number; budget: number }) {
  const health = usageHealth(used, budget);
  const percent = budget > 0 ? Math.min(100, Math.round((used / budget) * 100)) : used > 0 ? 100 : 0;
  return (
    <div>
      <progress class={`bar ${health}`} max={100} value={percent} aria-labelledby={`${id}-usage`}>
        {percent}%
      </progress>
      <p id={`${id}-usage`} class="hint">
        {formatNumber(used)} of {formatNumber(budget)} tokens used today ({percent}%)
        {health === 'warn' && ' · near the limit'}
        {health === 'danger' && ' · at the limit'}
      </p>
    </div>
  );
}

/**
 * A value shown once with a copy button. The button stays hidden until the
 * dashboard script runs (without script, select and copy by hand).
 */
export function CopyableBlock({
  id,
  title,
  copyLabel,
  hint,
  value,
}: {
  id: string;
  title: string;
  copyLabel: string;
  hint?: string;
  value: string;
}) {
  return (
    <section class="card" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      {hint ? <p class="hint">{hint}</p> : null}
      <pre id={id} tabindex={0}>
        {value}
      </pre>
      <div class="actions">
        <button type="button" data-copy={id} hidden>
          {copyLabel}
        </button>
        <span id={`${id}-status`} role="status" aria-live="polite"></span>
      </div>
    </section>
  );
}
