import { describe, expect, it } from 'vitest';
import { MemoryChangeFeed } from '../store/memory/changes.js';
import { getCustomer, createOrder } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';
import { ListenStreams, ToolListWatch } from './listen-streams.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ListenStreams', () => {
  it("delivers an agent's change to that agent's streams only, and a change for everyone to all", async () => {
    const streams = new ListenStreams(new MemoryChangeFeed());
    const heard: string[] = [];
    streams.listen('a', () => heard.push('a1'));
    streams.listen('a', () => heard.push('a2'));
    streams.listen('b', () => heard.push('b'));
    await streams.publish({ agentId: 'a' });
    await settle();
    expect(heard.sort()).toEqual(['a1', 'a2']);
    heard.length = 0;
    await streams.publish({ agentId: null });
    await settle();
    expect(heard.sort()).toEqual(['a1', 'a2', 'b']);
  });

  it('a closed stream hears nothing more and frees its place; closing twice counts once', async () => {
    const streams = new ListenStreams(new MemoryChangeFeed(), { maxPerAgent: 1 });
    let heard = 0;
    const close = streams.listen('a', () => (heard += 1));
    close();
    close();
    expect(streams.open).toBe(0);
    await streams.publish({ agentId: 'a' });
    await settle();
    expect(heard).toBe(0);
    expect(() => streams.listen('a', () => undefined)).not.toThrow();
  });

  it('bounds the streams per agent and per instance with too-many-listens (429)', () => {
    const streams = new ListenStreams(new MemoryChangeFeed(), { maxPerAgent: 2, maxTotal: 3 });
    streams.listen('a', () => undefined);
    streams.listen('a', () => undefined);
    expect(() => streams.listen('a', () => undefined)).toThrow(
      expect.objectContaining({ code: 'too-many-listens', httpStatus: 429 }),
    );
    streams.listen('b', () => undefined);
    expect(() => streams.listen('c', () => undefined)).toThrow(/instance/);
    expect(streams.open).toBe(3);
  });

  it('10,000 streams of one agent: the first 10 open, every other is refused, nothing else grows', () => {
    const streams = new ListenStreams(new MemoryChangeFeed());
    let refused = 0;
    for (let i = 0; i < 10_000; i += 1) {
      try {
        streams.listen('greedy', () => undefined);
      } catch {
        refused += 1;
      }
    }
    expect(streams.open).toBe(10);
    expect(refused).toBe(9_990);
  });
});

describe('ToolListWatch', () => {
  it('publishes a change for everyone when the loaded tools differ, not on the first load nor on an identical reload', () => {
    const published: Array<string | null> = [];
    const watch = new ToolListWatch(async (change) => void published.push(change.agentId));
    const one = buildToolRegistry([getCustomer]).registry.list();
    const two = buildToolRegistry([getCustomer, createOrder]).registry.list();
    watch.seen(one);
    watch.seen(buildToolRegistry([getCustomer]).registry.list());
    expect(published).toEqual([]);
    watch.seen(two);
    expect(published).toEqual([null]);
  });
});

describe('subscriptions/listen through McpService', () => {
  it('acknowledges, then delivers notifications/tools/list_changed tagged with the subscription id', async () => {
    const { AgentService } = await import('../agents/agent-service.js');
    const { TokenService } = await import('../auth/token-service.js');
    const { createMemoryStore } = await import('../store/memory/index.js');
    const { McpService } = await import('./mcp-service.js');
    const store = createMemoryStore();
    const listens = new ListenStreams(store.changes);
    const agents = new AgentService({
      store,
      tokens: new TokenService({ signingKey: 's'.repeat(32) }),
      onToolAccessChanged: (agentId) => void listens.publish({ agentId }),
    });
    const { registry } = buildToolRegistry([getCustomer]);
    const service = new McpService({
      agents,
      sessions: store.sessions,
      sessionIdleMs: 1000,
      toolCall: {
        registry: () => registry,
        budget: store.budget,
        forwarder: { forward: async () => ({ status: 200, headers: {}, body: {}, durationMs: 1 }) },
      },
      serverInfo: { name: 't', version: '1' },
      audit: () => undefined,
      isReady: async () => true,
      listens,
    });
    const agent = await agents.create({ label: 'l', dailyTokenBudget: 10 });
    const token = `Bearer ${(await agents.issueToken(agent.agentId, 1)).token}`;
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const reply = await service.post({
      authorization: token,
      sessionId: undefined,
      protocolVersion: '2026-07-28',
      headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true, promptsListChanged: true }, _meta: envelope },
      }),
    });
    if (reply.kind !== 'listen') throw new Error(`expected a listen stream, got ${JSON.stringify(reply)}`);
    expect(reply.acknowledged).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 9 }, notifications: { toolsListChanged: true } },
    });
    const sent: unknown[] = [];
    reply.deliver((message) => sent.push(message));
    await agents.update(agent.agentId, { allowedTools: ['getCustomer'] });
    await settle();
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 9 } },
      },
    ]);
    reply.close();
    expect(listens.open).toBe(0);
  });
});
