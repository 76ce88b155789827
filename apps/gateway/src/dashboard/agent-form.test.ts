import { describe, expect, it } from 'vitest';
import { formValues, parseCreateAgentForm, parseUpdateAgentForm } from './agent-form.js';

const base = { label: 'Bot', dailyTokenBudget: '1 000', toolAccess: 'all' };

describe('the agent form: rate limit', () => {
  it('sends both fields as the rate limit', () => {
    const parsed = parseUpdateAgentForm({ ...base, callsPerMinute: '60', burst: '10' });
    expect(parsed).toEqual({ ok: true, value: expect.objectContaining({ dailyTokenBudget: 1000, rateLimit: { callsPerMinute: 60, burst: 10 } }) });
  });

  it('reads both blank as "no limit" when editing, and as "the default" (omitted) when creating', () => {
    expect(parseUpdateAgentForm({ ...base, callsPerMinute: ' ', burst: '' })).toMatchObject({ ok: true, value: { rateLimit: null } });
    const created = parseCreateAgentForm({ ...base, callsPerMinute: '', burst: '' });
    expect(created.ok).toBe(true);
    expect(created.ok ? created.value.rateLimit : 'refused').toBeUndefined();
  });

  it('names the field at fault: the rate limit by its member, a list by the list', () => {
    expect(parseUpdateAgentForm({ ...base, callsPerMinute: '60', burst: '' })).toEqual({ ok: false, errors: [{ field: 'rateLimit.burst', message: 'must be a whole number' }] });
    expect(parseUpdateAgentForm({ ...base, callsPerMinute: '0', burst: '1.5' })).toEqual({
      ok: false,
      errors: [
        { field: 'rateLimit.callsPerMinute', message: 'must be at least 1' },
        { field: 'rateLimit.burst', message: 'must be a whole number' },
      ],
    });
    const longName = 'x'.repeat(200);
    expect(parseUpdateAgentForm({ ...base, toolAccess: 'selected', allowedTools: ['ok', longName] })).toMatchObject({ ok: false, errors: [{ field: 'allowedTools' }] });
  });

  it('shows what was typed again after a refusal', () => {
    expect(formValues({ ...base, callsPerMinute: '60', burst: 'x' })).toMatchObject({ callsPerMinute: '60', burst: 'x' });
  });
});
