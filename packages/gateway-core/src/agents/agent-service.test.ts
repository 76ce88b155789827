import { describe, expect, it } from 'vitest';
import { TokenService } from '../auth/token-service.js';
import { NotFoundError, UnauthorizedError } from '../errors.js';
import { createMemoryStore } from '../store/memory/index.js';
import { AGENT_ID_PATTERN, isAgentId, newAgentId } from './agent-id.js';
import { SettlementQueue } from '../pipeline/settlement-queue.js';
import { AgentService } from './agent-service.js';

function setup(now = new Date('2030-06-15T10:30:00.000Z')) {
  const store = createMemoryStore();
  const tokens = new TokenService({ signingKey: 's'.repeat(32), clock: () => now });
  return { store, service: new AgentService({ store, tokens, clock: () => now }) };
}

async function reason(attempt: Promise<unknown>): Promise<string> {
  const error = await attempt.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  return (error as UnauthorizedError).reason;
}

describe('newAgentId', () => {
  it('is agt_ plus 22 url-safe random characters, different every time', () => {
    const ids = new Set(Array.from({ length: 1000 }, newAgentId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(AGENT_ID_PATTERN);
    expect(isAgentId('agt_../../etc')).toBe(false);
  });
});

describe('AgentService', () => {
  it('creates an active agent with defaults for the optional fields', async () => {
    const { service } = setup();
    const agent = await service.create({ label: 'Support bot', dailyTokenBudget: 5000 });
    expect(agent).toEqual({
      agentId: expect.stringMatching(AGENT_ID_PATTERN),
      label: 'Support bot',
      dailyTokenBudget: 5000,
      isActive: true,
      allowedTools: null,
      scopes: [],
      externalSubjects: [],
      rateLimit: null,
      deactivatedAt: null,
      createdAt: '2030-06-15T10:30:00.000Z',
      updatedAt: '2030-06-15T10:30:00.000Z',
    });
    expect(await service.get(agent.agentId)).toEqual(agent);
    expect(await service.list()).toEqual([agent]);
  });

  it('gives a new agent the default rate limit unless it names its own, or null for none', async () => {
    const now = new Date('2030-06-15T10:30:00.000Z');
    const store = createMemoryStore();
    const tokens = new TokenService({ signingKey: 's'.repeat(32), clock: () => now });
    const defaultRateLimit = { callsPerMinute: 60, burst: 10 };
    const service = new AgentService({ store, tokens, clock: () => now, defaultRateLimit });
    expect((await service.create({ label: 'a', dailyTokenBudget: 1 })).rateLimit).toEqual(defaultRateLimit);
    expect(
      (await service.create({ label: 'b', dailyTokenBudget: 1, rateLimit: { callsPerMinute: 6, burst: 3 } })).rateLimit,
    ).toEqual({ callsPerMinute: 6, burst: 3 });
    const unlimited = await service.create({ label: 'c', dailyTokenBudget: 1, rateLimit: null });
    expect(unlimited.rateLimit).toBeNull();
    expect((await service.update(unlimited.agentId, { rateLimit: { callsPerMinute: 1, burst: 1 } })).rateLimit).toEqual(
      { callsPerMinute: 1, burst: 1 },
    );
    expect((await service.update(unlimited.agentId, { label: 'c2' })).rateLimit).toEqual({
      callsPerMinute: 1,
      burst: 1,
    });
    expect((await service.update(unlimited.agentId, { rateLimit: null })).rateLimit).toBeNull();
  });

  it('throws NotFoundError (404) for an unknown agent everywhere', async () => {
    const { service } = setup();
    for (const attempt of [
      service.get('agt_nope'),
      service.update('agt_nope', { label: 'x' }),
      service.delete('agt_nope'),
      service.issueToken('agt_nope', 30),
      service.budget('agt_nope'),
      service.resetBudget('agt_nope'),
    ]) {
      await expect(attempt).rejects.toBeInstanceOf(NotFoundError);
    }
  });

  it('authenticates a token of an active agent, carrying its scopes', async () => {
    const { service } = setup();
    const agent = await service.create({ label: 'a', dailyTokenBudget: 1, scopes: ['orders:read'] });
    const { token } = await service.issueToken(agent.agentId, 30);
    const authenticated = await service.authenticate(token);
    expect(authenticated.agent).toEqual(agent);
    expect(authenticated.claims).toMatchObject({ agentId: agent.agentId, scopes: ['orders:read'], generation: 0 });
  });

  it('rejects every earlier token on deactivation, and reactivation does not revive them', async () => {
    const { service } = setup();
    const agent = await service.create({ label: 'a', dailyTokenBudget: 1 });
    const before = (await service.issueToken(agent.agentId, 30)).token;

    await service.update(agent.agentId, { isActive: false });
    expect(await reason(service.authenticate(before))).toBe('inactive');

    await service.update(agent.agentId, { isActive: true });
    expect(await reason(service.authenticate(before))).toBe('revoked');
    const after = (await service.issueToken(agent.agentId, 30)).token;
    await expect(service.authenticate(after)).resolves.toMatchObject({ agent: { isActive: true } });
  });

  it('rejects the tokens of a deleted agent', async () => {
    const { service } = setup();
    const agent = await service.create({ label: 'a', dailyTokenBudget: 1 });
    const { token } = await service.issueToken(agent.agentId, 30);
    await service.delete(agent.agentId);
    expect(await reason(service.authenticate(token))).toBe('unknown-agent');
  });

  it('updates partially', async () => {
    const { service } = setup();
    const agent = await service.create({ label: 'a', dailyTokenBudget: 10, allowedTools: ['search'] });
    const updated = await service.update(agent.agentId, { dailyTokenBudget: 20 });
    expect(updated).toMatchObject({ label: 'a', dailyTokenBudget: 20, allowedTools: ['search'], isActive: true });
  });

  it('shows today’s budget: used, what is left after calls in flight, and the next UTC midnight', async () => {
    const { service, store } = setup();
    const agent = await service.create({ label: 'a', dailyTokenBudget: 1000 });
    const now = new Date('2030-06-15T10:30:00.000Z');
    const done = await store.budget.reserve(agent.agentId, 1000, 300, now);
    await store.budget.reserve(agent.agentId, 1000, 200, now);
    if (!done.ok) throw new Error('expected a grant');
    await store.budget.settle(done.reservation, 120);

    expect(await service.budget(agent.agentId)).toEqual({
      agentId: agent.agentId,
      dailyTokenBudget: 1000,
      used: 120,
      remaining: 680,
      resetsAt: '2030-06-16T00:00:00.000Z',
    });
    expect(await service.resetBudget(agent.agentId)).toMatchObject({ used: 0, remaining: 800 });
  });

  it('shows the charges this instance settles after the reply as soon as the budget is read', async () => {
    const now = new Date('2030-06-15T10:30:00.000Z');
    const store = createMemoryStore();
    const tokens = new TokenService({ signingKey: 's'.repeat(32), clock: () => now });
    const settlements = new SettlementQueue({ ledger: store.budget });
    const service = new AgentService({ store, tokens, settlements, clock: () => now });
    const agent = await service.create({ label: 'a', dailyTokenBudget: 1000 });
    const granted = await store.budget.reserve(agent.agentId, 1000, 300, now);
    if (!granted.ok) throw new Error('expected a grant');

    settlements.settle(granted.reservation, 120);
    expect(await service.budget(agent.agentId)).toMatchObject({ used: 120, remaining: 880 });
  });

  it('never shows a negative remaining budget after the budget is lowered', async () => {
    const { service, store } = setup();
    const agent = await service.create({ label: 'a', dailyTokenBudget: 1000 });
    const r = await store.budget.reserve(agent.agentId, 1000, 900, new Date('2030-06-15T10:30:00.000Z'));
    if (!r.ok) throw new Error('expected a grant');
    await store.budget.settle(r.reservation, 900);
    await service.update(agent.agentId, { dailyTokenBudget: 100 });
    expect(await service.budget(agent.agentId)).toMatchObject({ used: 900, remaining: 0 });
  });
});
