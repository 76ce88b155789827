/**
 * The behaviour every GatewayStore adapter promises, as one vitest suite.
 * Each adapter's test file calls `describeStoreContract` with a factory; the
 * suites must pass unchanged, so the gateway can swap adapters freely.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreOptions } from '../store/options.js';
import type { AgentRecord, GatewayStore, Reservation } from '../store/ports.js';
import { describeAuditCacheContract } from './store-contract-audit-cache.js';
import { eventually } from './eventually.js';
import { describeRateLimitContract } from './store-contract-rate-limit.js';
import { describeUsageContract } from './store-contract-usage.js';

export type StoreFactory = (options: StoreOptions) => Promise<GatewayStore>;

const RESERVATION_TTL_MS = 60_000;
/** A session cap no sessions test but the cap's own reaches. */
const CAP = 100;

function agent(agentId: string, overrides: Partial<AgentRecord> = {}): AgentRecord {
  return {
    agentId,
    label: `Agent ${agentId}`,
    dailyTokenBudget: 1000,
    isActive: true,
    allowedTools: null,
    scopes: [],
    externalSubjects: [],
    rateLimit: null,
    createdAt: '2030-01-01T00:00:00.000Z',
    updatedAt: '2030-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export interface StoreContractOptions {
  /**
   * How the view of every agent's audit records is ordered. `append` (the
   * default): in append order. `per-agent`: each agent's records in append
   * order, records of different agents by time, in either order within the
   * same moment (a Redis Cluster's shards of that view, each ordered by its
   * own master's clock).
   */
  auditOrder?: 'append' | 'per-agent';
}

export function describeStoreContract(
  adapter: string,
  createStore: StoreFactory,
  options: StoreContractOptions = {},
): void {
  describe(`GatewayStore contract: ${adapter}`, () => {
    const open: GatewayStore[] = [];
    const store = async (options: StoreOptions = {}) => {
      const created = await createStore({ reservationTtlMs: RESERVATION_TTL_MS, ...options });
      open.push(created);
      return created;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('answers a ping', async () => {
      await expect((await store()).ping()).resolves.toBeUndefined();
    });

    describe('agents', () => {
      it('returns what was created, and null for an unknown id', async () => {
        const { agents } = await store();
        const record = agent('agt_a', { allowedTools: ['search'], scopes: ['read'] });
        await agents.create(record);
        expect(await agents.get('agt_a')).toEqual(record);
        expect(await agents.get('agt_missing')).toBeNull();
      });

      it('refuses to create the same id twice', async () => {
        const { agents } = await store();
        await agents.create(agent('agt_a'));
        await expect(agents.create(agent('agt_a', { label: 'other' }))).rejects.toThrow(/already exists/);
        expect((await agents.get('agt_a'))?.label).toBe('Agent agt_a');
      });

      it('lists every agent, oldest first', async () => {
        const { agents } = await store();
        await agents.create(agent('agt_b', { createdAt: '2030-01-02T00:00:00.000Z' }));
        await agents.create(agent('agt_a', { createdAt: '2030-01-03T00:00:00.000Z' }));
        await agents.create(agent('agt_c', { createdAt: '2030-01-01T00:00:00.000Z' }));
        expect((await agents.list()).map((a) => a.agentId)).toEqual(['agt_c', 'agt_b', 'agt_a']);
      });

      it('updates only the fields in the patch', async () => {
        const { agents } = await store();
        await agents.create(agent('agt_a', { allowedTools: ['search'], scopes: ['read'] }));
        const updated = await agents.update(
          'agt_a',
          { label: 'Renamed', dailyTokenBudget: undefined },
          '2030-01-05T00:00:00.000Z',
        );
        const expected = agent('agt_a', {
          label: 'Renamed',
          allowedTools: ['search'],
          scopes: ['read'],
          updatedAt: '2030-01-05T00:00:00.000Z',
        });
        expect(updated).toEqual(expected);
        expect(await agents.get('agt_a')).toEqual(expected);
      });

      it('updates lists, flags and numbers, and clears the allowlist with null', async () => {
        const { agents } = await store();
        await agents.create(agent('agt_a', { allowedTools: ['search'] }));
        await agents.update(
          'agt_a',
          { isActive: false, dailyTokenBudget: 5, scopes: ['a', 'b'], allowedTools: [] },
          'later',
        );
        expect(await agents.get('agt_a')).toMatchObject({
          isActive: false,
          dailyTokenBudget: 5,
          scopes: ['a', 'b'],
          allowedTools: [],
        });
        await agents.update('agt_a', { allowedTools: null }, 'later');
        expect((await agents.get('agt_a'))?.allowedTools).toBeNull();
      });

      it('does not create an agent by updating an unknown id', async () => {
        const { agents } = await store();
        expect(await agents.update('agt_missing', { label: 'x' }, 'now')).toBeNull();
        expect(await agents.get('agt_missing')).toBeNull();
        expect(await agents.list()).toEqual([]);
      });

      it('deletes once', async () => {
        const { agents } = await store();
        await agents.create(agent('agt_a'));
        expect(await agents.delete('agt_a')).toBe(true);
        expect(await agents.delete('agt_a')).toBe(false);
        expect(await agents.get('agt_a')).toBeNull();
        expect(await agents.list()).toEqual([]);
      });

      it('hands out copies, so callers cannot change stored records by mutation', async () => {
        const { agents } = await store();
        await agents.create(agent('agt_a', { scopes: ['read'] }));
        const copy = await agents.get('agt_a');
        copy!.scopes.push('admin');
        expect((await agents.get('agt_a'))?.scopes).toEqual(['read']);
      });

      describe('external identities', () => {
        const alice = { issuer: 'https://idp.example/realms/a', subject: 'alice' };
        const bob = { issuer: 'https://idp.example/realms/a', subject: 'bob' };
        const aliceElsewhere = { issuer: 'https://other.example', subject: 'alice' };

        it('finds the agent an identity belongs to, per issuer', async () => {
          const { agents } = await store();
          await agents.create(agent('agt_a', { externalSubjects: [alice] }));
          expect(await agents.findByExternalSubject(alice)).toBe('agt_a');
          expect(await agents.findByExternalSubject(aliceElsewhere)).toBeNull();
          expect((await agents.get('agt_a'))?.externalSubjects).toEqual([alice]);
        });

        it('refuses to give an identity to a second agent, writing nothing', async () => {
          const { agents } = await store();
          await agents.create(agent('agt_a', { externalSubjects: [alice] }));
          await expect(agents.create(agent('agt_b', { externalSubjects: [bob, alice] }))).rejects.toMatchObject({
            code: 'conflict',
            ownerAgentId: 'agt_a',
          });
          expect(await agents.get('agt_b')).toBeNull();
          expect(await agents.findByExternalSubject(bob)).toBeNull();
        });

        it('moves identities on update, and refuses a taken one leaving the record as it was', async () => {
          const { agents } = await store();
          await agents.create(agent('agt_a', { externalSubjects: [alice] }));
          await agents.create(agent('agt_b', { externalSubjects: [aliceElsewhere] }));
          expect(await agents.update('agt_a', { externalSubjects: [bob] }, 'later')).toMatchObject({
            externalSubjects: [bob],
          });
          expect(await agents.findByExternalSubject(alice)).toBeNull();
          expect(await agents.findByExternalSubject(bob)).toBe('agt_a');
          await expect(
            agents.update('agt_a', { externalSubjects: [bob, aliceElsewhere], label: 'x' }, 'later'),
          ).rejects.toMatchObject({ code: 'conflict', ownerAgentId: 'agt_b' });
          expect(await agents.get('agt_a')).toMatchObject({ externalSubjects: [bob], label: 'Agent agt_a' });
          expect(await agents.findByExternalSubject(bob)).toBe('agt_a');
          // A patch without the field keeps the identities.
          await agents.update('agt_a', { label: 'renamed' }, 'later');
          expect(await agents.findByExternalSubject(bob)).toBe('agt_a');
        });

        it('frees the identities of a deleted agent', async () => {
          const { agents } = await store();
          await agents.create(agent('agt_a', { externalSubjects: [alice, bob] }));
          await agents.delete('agt_a');
          expect(await agents.findByExternalSubject(alice)).toBeNull();
          await agents.create(agent('agt_b', { externalSubjects: [alice] }));
          expect(await agents.findByExternalSubject(alice)).toBe('agt_b');
        });

        it('gives an identity to exactly one of two agents created at once', async () => {
          const { agents } = await store();
          // Several rounds: which interleaving a round gets depends on timing.
          for (let round = 0; round < 10; round++) {
            const identity = { issuer: alice.issuer, subject: `user-${round}` };
            const pair = [`agt_${round}a`, `agt_${round}b`];
            const results = await Promise.allSettled(
              pair.map((id) => agents.create(agent(id, { externalSubjects: [identity] }))),
            );
            expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
            const owner = await agents.findByExternalSubject(identity);
            const created = (await agents.list()).filter((record) => pair.includes(record.agentId));
            expect(created.map((record) => record.agentId)).toEqual([owner]);
          }
        });
      });
    });

    describe('revocation generation', () => {
      it('starts at 0 and goes up by one per revocation, per agent', async () => {
        const { revocation } = await store();
        expect(await revocation.generation('agt_a')).toBe(0);
        expect(await revocation.revokeAll('agt_a')).toBe(1);
        expect(await revocation.revokeAll('agt_a')).toBe(2);
        expect(await revocation.generation('agt_a')).toBe(2);
        expect(await revocation.generation('agt_b')).toBe(0);
      });

      it('forgets an agent', async () => {
        const { revocation } = await store();
        await revocation.revokeAll('agt_a');
        await revocation.forget('agt_a');
        expect(await revocation.generation('agt_a')).toBe(0);
      });
    });

    describe('sign-in attempt counter', () => {
      it('counts failures per subject with the latest time, and clears', async () => {
        const { signInAttempts } = await store();
        expect(await signInAttempts.read('10.0.0.1')).toBeNull();
        expect(await signInAttempts.recordFailure('10.0.0.1', 1_000, 60_000)).toEqual({
          failures: 1,
          lastFailureAt: 1_000,
        });
        expect(await signInAttempts.recordFailure('10.0.0.1', 2_500, 60_000)).toEqual({
          failures: 2,
          lastFailureAt: 2_500,
        });
        expect(await signInAttempts.read('10.0.0.1')).toEqual({ failures: 2, lastFailureAt: 2_500 });
        expect(await signInAttempts.read('10.0.0.2')).toBeNull();
        await signInAttempts.clear('10.0.0.1');
        expect(await signInAttempts.read('10.0.0.1')).toBeNull();
        expect((await signInAttempts.recordFailure('10.0.0.1', 3_000, 60_000)).failures).toBe(1);
      });

      it('forgets a subject its ttl after the latest failure', async () => {
        const { signInAttempts } = await store();
        await signInAttempts.recordFailure('::1', 1_000, 60);
        expect((await signInAttempts.read('::1'))?.failures).toBe(1);
        await sleep(150);
        expect(await signInAttempts.read('::1')).toBeNull();
      });

      it('counts failures from parallel callers exactly', async () => {
        const { signInAttempts } = await store();
        await Promise.all(Array.from({ length: 20 }, (_, i) => signInAttempts.recordFailure('10.0.0.3', i, 60_000)));
        expect((await signInAttempts.read('10.0.0.3'))?.failures).toBe(20);
      });
    });

    describe('single-use marks', () => {
      it('redeems a key once, whoever asks, concurrent callers included', async () => {
        const { redeemed } = await store();
        const tries = await Promise.all(Array.from({ length: 10 }, () => redeemed.redeem('nonce-a', 60_000)));
        expect(tries.filter(Boolean)).toHaveLength(1);
        expect(await redeemed.redeem('nonce-a', 60_000)).toBe(false);
        expect(await redeemed.redeem('nonce-b', 60_000)).toBe(true);
      });

      it('lets a key be redeemed again once its ttl has passed', async () => {
        const { redeemed } = await store();
        expect(await redeemed.redeem('nonce-c', 50)).toBe(true);
        await sleep(150);
        expect(await redeemed.redeem('nonce-c', 60_000)).toBe(true);
      });
    });

    describe('budget ledger', () => {
      const noon = new Date('2030-06-15T12:00:00.000Z');

      it('grants while the budget lasts, then refuses with what is left', async () => {
        const { budget } = await store();
        const first = await budget.reserve('agt_a', 100, 60, noon);
        expect(first).toMatchObject({
          ok: true,
          remaining: 40,
          reservation: { agentId: 'agt_a', day: '2030-06-15', granted: 60 },
        });
        expect(await budget.reserve('agt_a', 100, 41, noon)).toEqual({ ok: false, remaining: 40, reason: 'held' });
        expect(await budget.reserve('agt_b', 100, 100, noon)).toMatchObject({ ok: true, remaining: 0 });
        expect(await budget.usage('agt_a', noon)).toEqual({ day: '2030-06-15', used: 0, reserved: 60 });
      });

      it('grants what is left when a minimum allows a partial grant', async () => {
        const { budget } = await store();
        await budget.reserve('agt_a', 100, 70, noon);
        const partial = await budget.reserve('agt_a', 100, 50, noon, { minimum: 10 });
        expect(partial).toMatchObject({ ok: true, remaining: 0, reservation: { granted: 30 } });
        expect(await budget.reserve('agt_a', 100, 50, noon, { minimum: 1 })).toEqual({
          ok: false,
          remaining: 0,
          reason: 'held',
        });
      });

      it('tells a budget held by calls in flight from one already spent', async () => {
        const { budget } = await store();
        const inFlight = await budget.reserve('agt_a', 100, 100, noon);
        if (!inFlight.ok) throw new Error('expected a grant');
        expect(await budget.reserve('agt_a', 100, 10, noon, { minimum: 1 })).toEqual({
          ok: false,
          remaining: 0,
          reason: 'held',
        });
        await budget.settle(inFlight.reservation, 95);
        // The 5 tokens the call did not use are free again; then the settled tokens fill the budget.
        const last = await budget.reserve('agt_a', 100, 10, noon, { minimum: 1 });
        expect(last).toMatchObject({ ok: true, remaining: 0, reservation: { granted: 5 } });
        if (!last.ok) throw new Error('expected a grant');
        await budget.settle(last.reservation, 5);
        expect(await budget.reserve('agt_a', 100, 10, noon, { minimum: 1 })).toEqual({
          ok: false,
          remaining: 0,
          reason: 'exhausted',
        });
      });

      it('calls a budget exhausted once the settled tokens leave less than the minimum, whatever is held', async () => {
        const { budget } = await store();
        const spent = await budget.reserve('agt_a', 100, 92, noon);
        if (!spent.ok) throw new Error('expected a grant');
        await budget.settle(spent.reservation, 92);
        // 8 left and nothing held: a call needing 10 can never fit today.
        expect(await budget.reserve('agt_a', 100, 10, noon)).toEqual({ ok: false, remaining: 8, reason: 'exhausted' });
        // 8 left, all held: a call needing 8 could fit once they settle; one needing 9 never can.
        expect(await budget.reserve('agt_a', 100, 8, noon)).toMatchObject({ ok: true, remaining: 0 });
        expect(await budget.reserve('agt_a', 100, 8, noon, { minimum: 8 })).toEqual({
          ok: false,
          remaining: 0,
          reason: 'held',
        });
        expect(await budget.reserve('agt_a', 100, 9, noon, { minimum: 9 })).toEqual({
          ok: false,
          remaining: 0,
          reason: 'exhausted',
        });
      });

      it("tells this store's listeners when a settle, release or reset frees an agent's tokens", async () => {
        const { budget } = await store();
        expect(budget.onFreed).toBeTypeOf('function');
        const heard: string[] = [];
        const stopA = budget.onFreed!('agt_a', () => heard.push('a'));
        budget.onFreed!('agt_b', () => heard.push('b'));
        const grant = async () => {
          const r = await budget.reserve('agt_a', 100, 10, noon);
          if (!r.ok) throw new Error('expected a grant');
          return r.reservation;
        };
        const settled = await grant();
        expect(heard).toEqual([]);
        await budget.settle(settled, 3);
        expect(heard).toEqual(['a']);
        await budget.settle(settled, 3); // already settled: nothing was freed
        await budget.release(await grant());
        expect(heard).toEqual(['a', 'a']);
        await budget.reset('agt_a', noon);
        expect(heard).toEqual(['a', 'a', 'a']);
        stopA();
        await budget.release(await grant());
        expect(heard).toEqual(['a', 'a', 'a']);
      });

      it('never grants past the budget under 200 concurrent reservations', async () => {
        const { budget } = await store();
        const results = await Promise.all(Array.from({ length: 200 }, () => budget.reserve('agt_a', 1000, 7, noon)));
        const granted = results.flatMap((r) => (r.ok ? [r.reservation.granted] : []));
        expect(granted).toHaveLength(142); // floor(1000 / 7)
        expect(granted.reduce((a, b) => a + b, 0)).toBe(994);
        expect(await budget.usage('agt_a', noon)).toMatchObject({ reserved: 994 });
      });

      it('hands out exactly the whole budget to 200 concurrent partial reservations', async () => {
        const { budget } = await store();
        const results = await Promise.all(
          Array.from({ length: 200 }, () => budget.reserve('agt_a', 1000, 7, noon, { minimum: 1 })),
        );
        const granted = results.flatMap((r) => (r.ok ? [r.reservation.granted] : []));
        expect(granted.reduce((a, b) => a + b, 0)).toBe(1000);
        expect(results.filter((r) => !r.ok)).toHaveLength(200 - granted.length);
      });

      it('keeps the total within budget when 200 concurrent calls reserve, settle and release', async () => {
        const { budget } = await store();
        const calls = Array.from({ length: 200 }, async (_, i): Promise<number> => {
          const r = await budget.reserve('agt_a', 500, 10, noon);
          if (!r.ok) return 0;
          if (i % 3 === 0) {
            await budget.release(r.reservation);
            return 0;
          }
          await budget.settle(r.reservation, 4);
          return 4;
        });
        const spent = (await Promise.all(calls)).reduce((a, b) => a + b, 0);
        const usage = await budget.usage('agt_a', noon);
        expect(usage).toEqual({ day: '2030-06-15', used: spent, reserved: 0 });
        expect(usage.used).toBeLessThanOrEqual(500);
      });

      it('settles what was used, frees the rest, and charges a reservation once', async () => {
        const { budget } = await store();
        const r = await budget.reserve('agt_a', 100, 60, noon);
        if (!r.ok) throw new Error('expected a grant');
        expect(await budget.settle(r.reservation, 20)).toBe(true);
        expect(await budget.settle(r.reservation, 20)).toBe(false);
        expect(await budget.release(r.reservation)).toBe(false);
        expect(await budget.usage('agt_a', noon)).toEqual({ day: '2030-06-15', used: 20, reserved: 0 });
        expect(await budget.reserve('agt_a', 100, 80, noon)).toMatchObject({ ok: true, remaining: 0 });
      });

      it('never charges more than was granted', async () => {
        const { budget } = await store();
        const r = await budget.reserve('agt_a', 100, 10, noon);
        if (!r.ok) throw new Error('expected a grant');
        await budget.settle(r.reservation, 50);
        expect((await budget.usage('agt_a', noon)).used).toBe(10);
      });

      it('releases a reservation once and charges nothing', async () => {
        const { budget } = await store();
        const r = await budget.reserve('agt_a', 100, 60, noon);
        if (!r.ok) throw new Error('expected a grant');
        expect(await budget.release(r.reservation)).toBe(true);
        expect(await budget.release(r.reservation)).toBe(false);
        expect(await budget.settle(r.reservation, 60)).toBe(false);
        expect(await budget.usage('agt_a', noon)).toEqual({ day: '2030-06-15', used: 0, reserved: 0 });
      });

      it('ignores a forged reservation', async () => {
        const { budget } = await store();
        const forged: Reservation = { agentId: 'agt_a', day: '2030-06-15', id: 'not-a-reservation', granted: 50 };
        expect(await budget.settle(forged, 50)).toBe(false);
        expect((await budget.usage('agt_a', noon)).used).toBe(0);
      });

      it('rolls over at 00:00 UTC, charging each call to the day it started', async () => {
        const { budget } = await store();
        const lastSecond = new Date('2030-06-15T23:59:59.000Z');
        const midnight = new Date('2030-06-16T00:00:00.000Z');
        const late = await budget.reserve('agt_a', 100, 100, lastSecond);
        if (!late.ok) throw new Error('expected a grant');
        expect(await budget.reserve('agt_a', 100, 1, lastSecond)).toEqual({ ok: false, remaining: 0, reason: 'held' });

        const early = await budget.reserve('agt_a', 100, 100, midnight);
        expect(early).toMatchObject({ ok: true, reservation: { day: '2030-06-16' } });
        expect(await budget.settle(late.reservation, 70)).toBe(true);
        expect(await budget.usage('agt_a', lastSecond)).toEqual({ day: '2030-06-15', used: 70, reserved: 0 });
        expect(await budget.usage('agt_a', midnight)).toEqual({ day: '2030-06-16', used: 0, reserved: 100 });
      });

      it('lets a reservation lapse after its TTL, so a crashed caller cannot hold budget', async () => {
        const { budget } = await store({ reservationTtlMs: 1000 });
        const crashed = await budget.reserve('agt_a', 100, 100, noon);
        if (!crashed.ok) throw new Error('expected a grant');
        expect((await budget.reserve('agt_a', 100, 1, new Date(noon.getTime() + 999))).ok).toBe(false);
        const later = new Date(noon.getTime() + 1000);
        expect(await budget.usage('agt_a', later)).toMatchObject({ reserved: 0 });
        expect(await budget.reserve('agt_a', 100, 100, later)).toMatchObject({ ok: true });
        // The lapsed reservation is gone: settling it late charges nothing, so nothing is charged twice.
        expect(await budget.settle(crashed.reservation, 100)).toBe(false);
        expect((await budget.usage('agt_a', later)).used).toBe(0);
      });

      it('resets today’s usage but keeps calls in flight charged', async () => {
        const { budget } = await store();
        const done = await budget.reserve('agt_a', 100, 50, noon);
        const inFlight = await budget.reserve('agt_a', 100, 30, noon);
        if (!done.ok || !inFlight.ok) throw new Error('expected grants');
        await budget.settle(done.reservation, 50);
        await budget.reset('agt_a', noon);
        expect(await budget.usage('agt_a', noon)).toEqual({ day: '2030-06-15', used: 0, reserved: 30 });
        await budget.settle(inFlight.reservation, 30);
        expect((await budget.usage('agt_a', noon)).used).toBe(30);
      });

      it('reports an unknown agent as unused', async () => {
        const { budget } = await store();
        expect(await budget.usage('agt_nobody', noon)).toEqual({ day: '2030-06-15', used: 0, reserved: 0 });
      });

      it('rejects token counts that are not non-negative integers', async () => {
        const { budget } = await store();
        await expect(budget.reserve('agt_a', 100, 0, noon)).rejects.toThrow(RangeError);
        await expect(budget.reserve('agt_a', 100, -5, noon)).rejects.toThrow(RangeError);
        await expect(budget.reserve('agt_a', 100, 1.5, noon)).rejects.toThrow(RangeError);
        await expect(budget.reserve('agt_a', -1, 1, noon)).rejects.toThrow(RangeError);
        await expect(budget.reserve('agt_a', 100, 5, noon, { minimum: 6 })).rejects.toThrow(RangeError);
        const r = await budget.reserve('agt_a', 100, 5, noon);
        if (!r.ok) throw new Error('expected a grant');
        await expect(budget.settle(r.reservation, -1)).rejects.toThrow(RangeError);
        expect(await budget.usage('agt_a', noon)).toMatchObject({ used: 0, reserved: 5 });
      });
    });

    describe('sessions', () => {
      const session = {
        sessionId: 'sess-1',
        agentId: 'agt_a',
        protocolVersion: '2024-11-05',
        clientInfo: { name: 'client', version: '1.0.0' },
        createdAt: '2030-01-01T00:00:00.000Z',
      };

      it('returns a created session and null for an unknown one', async () => {
        const { sessions } = await store();
        await sessions.create(session, 60_000, CAP);
        expect(await sessions.touch('sess-1', 60_000)).toEqual(session);
        expect(await sessions.touch('sess-unknown', 60_000)).toBeNull();
      });

      it('expires an idle session, and every touch extends it', async () => {
        const { sessions } = await store();
        await sessions.create(session, 300, CAP);
        await sleep(200);
        expect(await sessions.touch('sess-1', 300)).not.toBeNull();
        await sleep(200); // 400 ms after creation: alive only because the touch extended it
        expect(await sessions.touch('sess-1', 300)).not.toBeNull();
        await sleep(450);
        expect(await sessions.touch('sess-1', 300)).toBeNull();
      });

      it('deletes once', async () => {
        const { sessions } = await store();
        await sessions.create(session, 60_000, CAP);
        expect(await sessions.delete('sess-1')).toBe(true);
        expect(await sessions.delete('sess-1')).toBe(false);
        expect(await sessions.touch('sess-1', 60_000)).toBeNull();
      });

      const of = (agentId: string, sessionId: string) => ({ ...session, agentId, sessionId });
      /** Which of these ids still answer a touch. */
      const alive = async (sessions: GatewayStore['sessions'], ids: string[]) =>
        (await Promise.all(ids.map(async (id) => ((await sessions.touch(id, 60_000)) ? id : null)))).filter(
          (id) => id !== null,
        );

      it('ends nothing while the agent is under its cap, and counts only its own sessions', async () => {
        const { sessions } = await store();
        expect(await sessions.create(of('agt_a', 'a1'), 60_000, 2)).toEqual([]);
        expect(await sessions.create(of('agt_b', 'b1'), 60_000, 2)).toEqual([]);
        expect(await sessions.create(of('agt_b', 'b2'), 60_000, 2)).toEqual([]);
        expect(await sessions.create(of('agt_a', 'a2'), 60_000, 2)).toEqual([]);
        expect(await alive(sessions, ['a1', 'a2', 'b1', 'b2'])).toEqual(['a1', 'a2', 'b1', 'b2']);
      });

      it("past the cap, ends the agent's least recently used session, not its oldest", async () => {
        const { sessions } = await store();
        for (const id of ['a1', 'a2', 'a3']) {
          expect(await sessions.create(of('agt_a', id), 60_000, 3)).toEqual([]);
          await sleep(5);
        }
        await sessions.create(of('agt_b', 'b1'), 60_000, 3);
        await sessions.touch('a1', 60_000); // a1 is the oldest, but a2 is now the one idle longest
        await sleep(5);
        expect(await sessions.create(of('agt_a', 'a4'), 60_000, 3)).toEqual(['a2']);
        expect(await alive(sessions, ['a1', 'a2', 'a3', 'a4', 'b1'])).toEqual(['a1', 'a3', 'a4', 'b1']);
        expect(await sessions.delete('a2')).toBe(false);
      });

      it('ends as many as it takes when the cap went down', async () => {
        const { sessions } = await store();
        for (const id of ['a1', 'a2', 'a3', 'a4']) {
          await sessions.create(of('agt_a', id), 60_000, 10);
          await sleep(5);
        }
        expect(await sessions.create(of('agt_a', 'a5'), 60_000, 2)).toEqual(['a1', 'a2', 'a3']);
        expect(await alive(sessions, ['a1', 'a2', 'a3', 'a4', 'a5'])).toEqual(['a4', 'a5']);
      });

      it('does not count expired or deleted sessions', async () => {
        const { sessions } = await store();
        await sessions.create(of('agt_a', 'a1'), 100, 2);
        await sessions.create(of('agt_a', 'a2'), 60_000, 2);
        await sleep(150); // a1 has expired
        expect(await sessions.create(of('agt_a', 'a3'), 60_000, 2)).toEqual([]);
        expect(await sessions.delete('a2')).toBe(true);
        expect(await sessions.create(of('agt_a', 'a4'), 60_000, 2)).toEqual([]);
        expect(await alive(sessions, ['a1', 'a2', 'a3', 'a4'])).toEqual(['a3', 'a4']);
      });
    });

    describe('tool-list changes', () => {
      it(
        "a change reaches the store's subscribers (on Redis, through pub/sub), for one agent or for all, and not " +
          'after unsubscribing',
        async () => {
          const { changes } = await store();
          const heard: Array<string | null> = [];
          const unsubscribe = changes.subscribe((change) => heard.push(change.agentId));
          // The subscription may take a round trip to be live:
          // publish until it is heard (bounded by attempts, not time).
          for (let attempt = 0; attempt < 100 && heard.length === 0; attempt += 1) {
            await changes.publish({ agentId: 'agt-1' });
            await sleep(20);
          }
          expect(heard[0]).toBe('agt-1');
          heard.length = 0;
          await changes.publish({ agentId: null });
          for (let attempt = 0; attempt < 100 && heard.length === 0; attempt += 1) await sleep(10);
          expect(heard).toEqual([null]);
          unsubscribe();
          await changes.publish({ agentId: 'agt-2' });
          await sleep(50);
          expect(heard).toEqual([null]);
        },
      );
    });

    describe('kept stream answers', () => {
      const answer = { sessionId: 'sess-1', message: '{"jsonrpc":"2.0","id":1,"result":{}}' };

      it('returns a kept answer, null for an unknown stream, and the newest of two', async () => {
        const { streams } = await store();
        expect(await streams.get('stream-1')).toBeNull();
        await streams.keep('stream-1', answer, 60_000);
        expect(await streams.get('stream-1')).toEqual(answer);
        await streams.keep('stream-1', { ...answer, message: '{}' }, 60_000);
        expect(await streams.get('stream-1')).toEqual({ ...answer, message: '{}' });
      });

      it('tells the watchers of a stream, and only them, when its answer is kept', async () => {
        const { streams } = await store();
        const heard: string[] = [];
        const stopA = await streams.watch('stream-a', () => heard.push('a'));
        const stopB = await streams.watch('stream-b', () => heard.push('b'));
        await streams.keep('stream-a', answer, 60_000);
        await eventually(async () => expect(heard).toContain('a'));
        stopA();
        await streams.keep('stream-a', answer, 60_000);
        await streams.keep('stream-c', answer, 60_000);
        // A notice for stream-b (heard only by its watcher) marks the point by which the others would have come.
        await streams.keep('stream-b', answer, 60_000);
        await eventually(async () => expect(heard).toContain('b'));
        stopB();
        expect(heard).toEqual(['a', 'b']);
      });

      it('forgets an answer when its time is up', async () => {
        const { streams } = await store();
        await streams.keep('stream-2', answer, 200);
        expect(await streams.get('stream-2')).not.toBeNull();
        await sleep(350);
        expect(await streams.get('stream-2')).toBeNull();
      });
    });

    describeAuditCacheContract(createStore, options.auditOrder ?? 'append');
    describeRateLimitContract(createStore);
    describeUsageContract(createStore);
  });
}
