import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRedisServerAvailable, startRedisServer, type RedisServer } from '../../testing/redis-server.js';
import { createStore } from '../create-store.js';
import type { GatewayStore } from '../ports.js';

/** What the contract suite cannot see: how many commands an agent's record and generation cost. */
describe.runIf(isRedisServerAvailable())('Redis agent reads', () => {
  let server: RedisServer;
  let store: GatewayStore;
  let raw: ReturnType<typeof createClient>;

  beforeAll(async () => {
    server = await startRedisServer();
    store = await createStore(server.url, { keyPrefix: `test:${randomUUID()}:` });
    raw = createClient({ url: server.url });
    await raw.connect();
    const at = new Date().toISOString();
    await store.agents.create({
      agentId: 'agt_r',
      label: 'r',
      dailyTokenBudget: 5,
      isActive: true,
      allowedTools: null,
      scopes: [],
      externalSubjects: [],
      rateLimit: null,
      createdAt: at,
      updatedAt: at,
    });
    await store.revocation.revokeAll('agt_r');
    // Loads the script (EVALSHA, NOSCRIPT, EVAL): the counts below are of a server that knows it.
    await Promise.all([store.agents.get('agt_r'), store.revocation.generation('agt_r')]);
  });
  afterAll(async () => {
    await raw?.close();
    await store?.close();
    await server?.stop();
  });

  /** Calls of each command the server has run so far (from scripts too). */
  async function calls(): Promise<Record<string, number>> {
    const stats = await raw.info('commandstats');
    return Object.fromEntries(
      [...stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map(([, name, count]) => [name!, Number(count)]),
    );
  }

  async function counted<T>(read: () => Promise<T>): Promise<{ value: T; sent: Record<string, number> }> {
    const before = await calls();
    const value = await read();
    const after = await calls();
    const sent = Object.fromEntries(
      Object.entries(after).flatMap(([name, count]) =>
        count > (before[name] ?? 0) && name !== 'info' ? [[name, count - (before[name] ?? 0)]] : [],
      ),
    );
    return { value, sent };
  }

  it('reads a record and its generation asked for together with one script', async () => {
    const { value, sent } = await counted(() =>
      Promise.all([store.agents.get('agt_r'), store.revocation.generation('agt_r')]),
    );
    expect(value[0]).toMatchObject({ agentId: 'agt_r', dailyTokenBudget: 5, externalSubjects: [] });
    expect(value[1]).toBe(1);
    expect(sent).toEqual({ evalsha: 1, hgetall: 1, get: 1 });
  });

  it('reads an unknown agent and a generation never bumped as such, together', async () => {
    expect(await Promise.all([store.agents.get('agt_none'), store.revocation.generation('agt_none')])).toEqual([
      null,
      0,
    ]);
  });

  it('reads each alone with its plain command, and two agents apart', async () => {
    expect((await counted(() => store.agents.get('agt_r'))).sent).toEqual({ hgetall: 1 });
    expect((await counted(() => store.revocation.generation('agt_r'))).sent).toEqual({ get: 1 });
    const { value, sent } = await counted(() =>
      Promise.all([store.agents.get('agt_r'), store.revocation.generation('agt_none')]),
    );
    expect(value.map((v) => (typeof v === 'number' ? v : v?.agentId))).toEqual(['agt_r', 0]);
    expect(sent).toEqual({ hgetall: 1, get: 1 });
  });

  it('gives every caller of the same read its own record', async () => {
    const [a, b] = await Promise.all([store.agents.get('agt_r'), store.agents.get('agt_r')]);
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
  });
});
