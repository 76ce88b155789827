import { describe, expect, it } from 'vitest';
import { InvalidInputError, SubjectTakenError } from '@tollgate/gateway-core/errors';
import {
  encodeIdentity,
  formValues,
  parseCreateAgentForm,
  parseUpdateAgentForm,
  serviceFieldErrors,
  type FormBody,
} from './agent-form.js';
import { AgentForm } from './views/agent-form.js';
import { agentFormValues } from './views/agents.js';

const base = { label: 'Bot', dailyTokenBudget: '1 000', toolAccess: 'all' };

describe('the agent form: rate limit', () => {
  it('sends both fields as the rate limit', () => {
    const parsed = parseUpdateAgentForm({ ...base, callsPerMinute: '60', burst: '10' });
    expect(parsed).toEqual({
      ok: true,
      value: expect.objectContaining({ dailyTokenBudget: 1000, rateLimit: { callsPerMinute: 60, burst: 10 } }),
    });
  });

  it('reads both blank as "no limit" when editing, and as "the default" (omitted) when creating', () => {
    expect(parseUpdateAgentForm({ ...base, callsPerMinute: ' ', burst: '' })).toMatchObject({
      ok: true,
      value: { rateLimit: null },
    });
    const created = parseCreateAgentForm({ ...base, callsPerMinute: '', burst: '' });
    expect(created.ok).toBe(true);
    expect(created.ok ? created.value.rateLimit : 'refused').toBeUndefined();
  });

  it('names the field at fault: the rate limit by its member, a list by the list', () => {
    expect(parseUpdateAgentForm({ ...base, callsPerMinute: '60', burst: '' })).toEqual({
      ok: false,
      errors: [{ field: 'rateLimit.burst', message: 'must be a whole number' }],
    });
    expect(parseUpdateAgentForm({ ...base, callsPerMinute: '0', burst: '1.5' })).toEqual({
      ok: false,
      errors: [
        { field: 'rateLimit.callsPerMinute', message: 'must be at least 1' },
        { field: 'rateLimit.burst', message: 'must be a whole number' },
      ],
    });
    const longName = 'x'.repeat(200);
    expect(parseUpdateAgentForm({ ...base, toolAccess: 'selected', allowedTools: ['ok', longName] })).toMatchObject({
      ok: false,
      errors: [{ field: 'allowedTools' }],
    });
  });

  it('shows what was typed again after a refusal', () => {
    expect(formValues({ ...base, callsPerMinute: '60', burst: 'x' })).toMatchObject({
      callsPerMinute: '60',
      burst: 'x',
    });
  });
});

describe('the agent form: sign-in identities', () => {
  const idp = 'https://sso.example.com/realms/acme';

  it('reads new identities one per line, issuer then subject', () => {
    const parsed = parseUpdateAgentForm({ ...base, externalSubjects: `${idp} alice\r\n\n  ${idp}   Bob Smith  \n` });
    const subjects = [
      { issuer: idp, subject: 'alice' },
      { issuer: idp, subject: 'Bob Smith' },
    ];
    expect(parsed).toMatchObject({ ok: true, value: { externalSubjects: subjects } });
  });

  it('keeps the checked identity boxes exactly, adds the typed ones, and counts one typed again once', () => {
    const held = { issuer: idp, subject: 'alice' };
    const removed = { issuer: idp, subject: 'bob' };
    const form = {
      ...base,
      identityOffered: [encodeIdentity(held), encodeIdentity(removed)],
      identity: encodeIdentity(held),
      externalSubjects: `${idp} carol\n${idp} alice`,
    };
    expect(parseUpdateAgentForm(form)).toMatchObject({
      ok: true,
      value: { externalSubjects: [held, { issuer: idp, subject: 'carol' }] },
    });
    expect(formValues(form).identities).toEqual([
      { ...held, kept: true },
      { ...removed, kept: false },
    ]);
  });

  it('refuses an identity box that is not one the page wrote', () => {
    expect(parseUpdateAgentForm({ ...base, identity: 'bm90IGpzb24' })).toEqual({
      ok: false,
      errors: [{ field: 'externalSubjects', message: 'an identity box was altered; reload the page' }],
    });
  });

  it('counts an identity typed twice once', () => {
    expect(parseUpdateAgentForm({ ...base, externalSubjects: `${idp} a\n${idp} a` })).toMatchObject({
      ok: true,
      value: { externalSubjects: [{ issuer: idp, subject: 'a' }] },
    });
  });

  // Issue 25, finding 6: a subject with a newline, stored by provisioning, came back from an
  // unchanged save as two identities, the second one another person's (identity takeover).
  it.each([
    ['a newline', `mallory\n${idp} victim`],
    ['a carriage return and line feed', `mallory\r\n${idp} victim`],
    ['NUL, a bidi override and a lone surrogate', 'a\u0000b\u202Ec\uD800'],
    ['leading and trailing spaces', '  spaced  '],
  ])('saves an agent whose stored subject holds %s unchanged, as the browser submits the edit page', (_, subject) => {
    const agent = {
      agentId: 'agt_x',
      label: 'mallory',
      dailyTokenBudget: 10,
      isActive: true,
      allowedTools: null,
      scopes: ['orders:read'],
      rateLimit: null,
      externalSubjects: [
        { issuer: idp, subject },
        { issuer: idp, subject: 'second' },
      ],
      deactivatedAt: null,
      createdAt: 'x',
      updatedAt: 'x',
    };
    const html = String(
      AgentForm({
        id: 'edit',
        action: '/x',
        submitLabel: 'Save',
        csrfToken: 't',
        values: agentFormValues(agent),
        toolNames: [],
        knownScopes: [],
      }),
    );
    const parsed = parseUpdateAgentForm(submittedFields(html));
    expect(parsed).toMatchObject({ ok: true });
    expect(parsed.ok && parsed.value.externalSubjects).toEqual(agent.externalSubjects);
  });

  it("turns the service's refusals (untrusted issuer, invalid subject, identity taken) into errors of the field, and nothing else", () => {
    const untrusted = new InvalidInputError('untrusted', [
      { path: 'externalSubjects.0.issuer', message: 'is not a trusted issuer (Gw:OAuth:Issuers)' },
    ]);
    expect(serviceFieldErrors(untrusted)).toEqual([
      { field: 'externalSubjects', message: 'is not a trusted issuer (Gw:OAuth:Issuers)' },
    ]);
    expect(
      serviceFieldErrors(
        new InvalidInputError('bad', [{ path: 'externalSubjects.1.subject', message: 'must not be empty' }]),
      ),
    ).toEqual([{ field: 'externalSubjects', message: 'must not be empty' }]);
    expect(serviceFieldErrors(new SubjectTakenError('alice at x already belongs to agent agt_1', 'agt_1'))).toEqual([
      { field: 'externalSubjects', message: 'alice at x already belongs to agent agt_1' },
    ]);
    expect(serviceFieldErrors(new Error('store down'))).toBeNull();
  });
});

/**
 * The fields a browser submits for a form's HTML, as HTML says: hidden and
 * text inputs always, boxes when checked, a textarea's text without its first
 * newline and with line breaks as CRLF; entities decoded.
 */
function submittedFields(html: string): FormBody {
  const decode = (text: string) =>
    text.replace(
      /&(lt|gt|quot|#39|amp);/g,
      (_, name: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[name]!,
    );
  const fields: Array<[string, string]> = [];
  for (const [tag] of html.matchAll(/<input\b[^>]*>/g)) {
    const attribute = (name: string) => new RegExp(`\\s${name}(?:="([^"]*)")?`).exec(tag);
    const type = attribute('type')?.[1] ?? 'text';
    const name = attribute('name')?.[1];
    if (name === undefined || ((type === 'checkbox' || type === 'radio') && attribute('checked') === null)) continue;
    fields.push([name, decode(attribute('value')?.[1] ?? (type === 'checkbox' ? 'on' : ''))]);
  }
  for (const [, name, text] of html.matchAll(/<textarea\b[^>]*\sname="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g)) {
    fields.push([
      name!,
      decode(text!)
        .replace(/^\r?\n/, '')
        .replace(/\r?\n/g, '\r\n'),
    ]);
  }
  const form: FormBody = {};
  for (const [name, value] of fields) {
    const had = form[name];
    form[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  return form;
}

describe('the agent form: tool search (issue 28)', () => {
  it("sends the search mode, '' as the gateway's setting, and the pinned tools as a list", () => {
    expect(
      parseUpdateAgentForm({ ...base, toolSearch: 'on', pinnedTools: 'get_order, list_orders get_order' }),
    ).toMatchObject({ ok: true, value: { toolSearch: 'on', pinnedTools: ['get_order', 'list_orders'] } });
    expect(parseUpdateAgentForm({ ...base, toolSearch: '' })).toMatchObject({
      ok: true,
      value: { toolSearch: null, pinnedTools: [] },
    });
  });

  it('refuses a search mode it does not know, naming the field', () => {
    expect(parseUpdateAgentForm({ ...base, toolSearch: 'sometimes' })).toEqual({
      ok: false,
      errors: [{ field: 'toolSearch', message: 'must be off, on, auto or null' }],
    });
  });
});

describe('the agent form: write confirmation (issue 26)', () => {
  it('sends confirmWrites true when the box is ticked and false when it is not, on create and on update', () => {
    expect(parseUpdateAgentForm({ ...base, confirmWrites: 'on' })).toMatchObject({
      ok: true,
      value: { confirmWrites: true },
    });
    expect(parseUpdateAgentForm({ ...base })).toMatchObject({ ok: true, value: { confirmWrites: false } });
    expect(parseCreateAgentForm({ ...base, confirmWrites: 'on' })).toMatchObject({
      ok: true,
      value: { confirmWrites: true },
    });
  });
});
