import { describe, expect, it } from 'vitest';
import { BudgetBar, usageHealth } from './parts.js';

const render = (used: number, budget: number) => String(BudgetBar({ id: 'agt_x', used, budget }));

describe('the budget bar', () => {
  it('turns amber at 80 % and red at 95 %, in class and in words', () => {
    expect(usageHealth(799, 1000)).toBe('ok');
    expect(usageHealth(800, 1000)).toBe('warn');
    expect(usageHealth(949, 1000)).toBe('warn');
    expect(usageHealth(950, 1000)).toBe('danger');

    const ok = render(500, 1000);
    expect(ok).toContain('class="bar ok"');
    expect(ok).not.toMatch(/near the limit|at the limit/);
    const warn = render(850, 1000);
    expect(warn).toContain('class="bar warn"');
    expect(warn).toContain('near the limit');
    const danger = render(1000, 1000);
    expect(danger).toContain('class="bar danger"');
    expect(danger).toContain('at the limit');
  });

  it('shows the numbers and the percentage, capped at 100 % when the budget was lowered below what is used', () => {
    const html = render(1500, 1000);
    expect(html).toContain('value="100"');
    expect(html).toContain('1,500 of 1,000 tokens used today (100%)');
  });

  it('treats a zero budget as at the limit once anything is used', () => {
    expect(usageHealth(0, 0)).toBe('ok');
    expect(usageHealth(1, 0)).toBe('danger');
    expect(render(0, 0)).toContain('value="0"');
  });
});
