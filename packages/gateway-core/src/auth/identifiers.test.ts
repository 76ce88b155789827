import { describe, expect, it } from 'vitest';
import type { TrustedIssuer } from '../auth/external-tokens.js';
import { ExternalTokens } from '../auth/external-tokens.js';
import { TokenService } from '../auth/token-service.js';
import { InvalidInputError } from '../errors.js';
import { createMemoryStore } from '../store/memory/index.js';
import { labelProblem, scopeProblem, subjectProblem } from './identifiers.js';
import { AgentService } from '../agents/agent-service.js';

const IDP = 'https://idp.example.com';

/** Text that reads as something it is not, or is not text at all (issue 25, findings 6 and 9). */
const MISLEADING = {
  NUL: 'a\u0000b',
  newline: `mallory\n${IDP} victim`,
  'carriage return': 'a\rb',
  tab: 'a\tb',
  DEL: 'a\u007fb',
  'C1 control (NEL)': 'a\u0085b',
  'right-to-left override': 'admin\u202Egnp.exe',
  'left-to-right isolate': 'a\u2066b',
  'zero-width space': 'ad\u200Bmin',
  'zero-width joiner': 'a\u200Db',
  BOM: '\uFEFFadmin',
  'line separator': 'a\u2028b',
  'lone high surrogate': 'a\uD800b',
  'lone low surrogate': 'a\uDC00',
};

describe('the identifier rules', () => {
  it.each(Object.entries(MISLEADING))('refuse a label or a subject with a %s', (_, text) => {
    expect(labelProblem(text)).toMatch(/must not contain control, bidi-override, zero-width/);
    expect(subjectProblem(text)).toMatch(/must not contain control, bidi-override, zero-width/);
  });

  it('accept labels and subjects in any script, emoji and all, counted in characters', () => {
    for (const text of [
      'Support bot',
      'Служба поддержки',
      'サポート',
      'دعم',
      'bot 🤖',
      'auth0|5f7c8ec7c33c6c004bbafe82',
      'a@b.example',
    ]) {
      expect(labelProblem(text)).toBeNull();
      expect(subjectProblem(text)).toBeNull();
    }
    expect(labelProblem('🤖'.repeat(200))).toBeNull();
    expect(labelProblem('🤖'.repeat(201))).toMatch(/at most 200/);
    expect(subjectProblem('x'.repeat(256))).toBeNull();
    expect(subjectProblem('x'.repeat(257))).toMatch(/at most 256/);
    expect(subjectProblem('x'.repeat(9000))).toMatch(/at most 256/);
    expect(labelProblem('   ')).toBe('must not be empty');
    expect(subjectProblem('')).toBe('must not be empty');
  });

  it('take scopes as RFC 6749 scope tokens only', () => {
    for (const scope of ['orders:read', 'https://graph.example.com/User.Read', 'a', "!#$%&'()*+,-./:;<=>?@[]^_`{|}~"])
      expect(scopeProblem(scope)).toBeNull();
    for (const scope of [
      'orders:read admin:all',
      'a\u0000',
      'a\nb',
      'a\tb',
      'say"hi"',
      'back\\slash',
      'é',
      '',
      'x'.repeat(129),
    ]) {
      expect(scopeProblem(scope), JSON.stringify(scope)).not.toBeNull();
    }
  });
});

describe('AgentService: every way an identifier enters is judged by the same rules', () => {
  function setup() {
    const issuers: TrustedIssuer[] = [{ issuer: IDP, audience: 'https://gw.example.com/mcp' }];
    const store = createMemoryStore();
    const service = new AgentService({
      store,
      tokens: new TokenService({ signingKey: 's'.repeat(32) }),
      external: new ExternalTokens({ issuers }),
    });
    return { store, service };
  }

  async function fieldsOf(attempt: Promise<unknown>): Promise<string[]> {
    const error = await attempt.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).fields.map((field) => field.path);
  }

  it('refuses a new agent with a misleading label, a scope that is two, or a misleading subject, naming each field', async () => {
    const { service, store } = setup();
    const fields = await fieldsOf(
      service.create({
        label: 'Support\u202E',
        dailyTokenBudget: 1,
        scopes: ['orders:read', 'orders:read admin:all'],
        externalSubjects: [
          { issuer: IDP, subject: 'alice' },
          { issuer: IDP, subject: MISLEADING.newline },
        ],
      }),
    );
    expect(fields).toEqual(['label', 'scopes.1', 'externalSubjects.1.subject']);
    expect(await store.agents.list()).toEqual([]);
  });

  it('refuses a confirmWrites that is not a boolean (a provisioning path has no request schema), and stores a true one', async () => {
    const { service, store } = setup();
    expect(
      await fieldsOf(service.create({ label: 'bot', dailyTokenBudget: 1, confirmWrites: 'yes' as never })),
    ).toEqual(['confirmWrites']);
    expect(await store.agents.list()).toEqual([]);
    const agent = await service.create({ label: 'bot', dailyTokenBudget: 1, confirmWrites: true });
    expect((await service.get(agent.agentId)).confirmWrites).toBe(true);
    expect(await fieldsOf(service.update(agent.agentId, { confirmWrites: 1 as never }))).toEqual(['confirmWrites']);
    expect((await service.update(agent.agentId, { confirmWrites: false })).confirmWrites).toBe(false);
  });

  it('refuses the same in a change, and changes nothing', async () => {
    const { service } = setup();
    const agent = await service.create({ label: 'bot', dailyTokenBudget: 1, scopes: ['orders:read'] });
    expect(await fieldsOf(service.update(agent.agentId, { label: 'a\u0000b' }))).toEqual(['label']);
    expect(await fieldsOf(service.update(agent.agentId, { scopes: ['orders:read', 'a\nb'] }))).toEqual(['scopes.1']);
    expect(
      await fieldsOf(service.update(agent.agentId, { externalSubjects: [{ issuer: IDP, subject: 'x'.repeat(9000) }] })),
    ).toEqual(['externalSubjects.0.subject']);
    expect(await service.get(agent.agentId)).toEqual(agent);
  });

  it('still edits an agent stored before the rules, keeping what the edit leaves alone, and refuses only what it adds', async () => {
    const { service, store } = setup();
    const agent = await service.create({ label: 'bot', dailyTokenBudget: 1 });
    // As an earlier version stored it: provisioned from a token with a newline in its subject.
    const legacy = {
      label: `${MISLEADING.newline} at idp`,
      scopes: ['a b'],
      externalSubjects: [{ issuer: IDP, subject: MISLEADING.newline }],
    };
    await store.agents.update(agent.agentId, legacy, agent.updatedAt);

    const saved = await service.update(agent.agentId, { ...legacy, dailyTokenBudget: 99 });
    expect(saved).toMatchObject({ ...legacy, dailyTokenBudget: 99 });
    expect(await fieldsOf(service.update(agent.agentId, { ...legacy, scopes: ['a b', 'c\u0000'] }))).toEqual([
      'scopes.1',
    ]);
    // Removing the bad identity, or renaming the agent, is an edit like any other.
    expect(await service.update(agent.agentId, { label: 'bot', externalSubjects: [] })).toMatchObject({
      label: 'bot',
      externalSubjects: [],
    });
  });
});
