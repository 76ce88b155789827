import { describe, expect, it } from 'vitest';
import { InvalidInputError, SubjectTakenError } from '@tollgate/gateway-core';
import { externalSubjectsText, formValues, parseCreateAgentForm, parseUpdateAgentForm, serviceFieldErrors } from './agent-form.js';

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

describe('the agent form: sign-in identities', () => {
  const idp = 'https://sso.example.com/realms/acme';

  it('reads one identity per line, issuer then subject, and writes them back the same way', () => {
    const parsed = parseUpdateAgentForm({ ...base, externalSubjects: `${idp} alice\r\n\n  ${idp}   Bob Smith  \n` });
    const subjects = [
      { issuer: idp, subject: 'alice' },
      { issuer: idp, subject: 'Bob Smith' },
    ];
    expect(parsed).toMatchObject({ ok: true, value: { externalSubjects: subjects } });
    expect(externalSubjectsText(subjects)).toBe(`${idp} alice\n${idp} Bob Smith`);
  });

  it('names the field for a line without a subject, or one identity twice', () => {
    expect(parseUpdateAgentForm({ ...base, externalSubjects: idp })).toEqual({ ok: false, errors: [{ field: 'externalSubjects', message: 'must not be empty' }] });
    expect(parseUpdateAgentForm({ ...base, externalSubjects: `${idp} a\n${idp} a` })).toMatchObject({ ok: false, errors: [{ field: 'externalSubjects' }] });
  });

  it("turns the service's refusals (untrusted issuer, identity taken) into errors of the field, and nothing else", () => {
    const untrusted = new InvalidInputError('untrusted', [{ path: 'externalSubjects.0.issuer', message: 'is not a trusted issuer (Gw:OAuth:Issuers)' }]);
    expect(serviceFieldErrors(untrusted)).toEqual([{ field: 'externalSubjects', message: 'is not a trusted issuer (Gw:OAuth:Issuers)' }]);
    expect(serviceFieldErrors(new SubjectTakenError('alice at x already belongs to agent agt_1', 'agt_1'))).toEqual([
      { field: 'externalSubjects', message: 'alice at x already belongs to agent agt_1' },
    ]);
    expect(serviceFieldErrors(new Error('store down'))).toBeNull();
  });
});

describe('the agent form: tool search (issue 28)', () => {
  it("sends the search mode, '' as the gateway's setting, and the pinned tools as a list", () => {
    expect(parseUpdateAgentForm({ ...base, toolSearch: 'on', pinnedTools: 'get_order, list_orders get_order' })).toMatchObject({ ok: true, value: { toolSearch: 'on', pinnedTools: ['get_order', 'list_orders'] } });
    expect(parseUpdateAgentForm({ ...base, toolSearch: '' })).toMatchObject({ ok: true, value: { toolSearch: null, pinnedTools: [] } });
  });

  it('refuses a search mode it does not know, naming the field', () => {
    expect(parseUpdateAgentForm({ ...base, toolSearch: 'sometimes' })).toEqual({ ok: false, errors: [{ field: 'toolSearch', message: 'must be off, on, auto or null' }] });
  });
});
