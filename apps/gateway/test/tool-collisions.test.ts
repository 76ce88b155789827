import { startRedisServer, type RedisServer } from '@tollgate/gateway-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET_ITEM, startControlledDownstream, type ControlledDownstream } from './support/controlled-downstream.js';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, openRawSession, rawCall, waitUntilReady, type TestAgent } from './support/mcp.js';
import { eventually, startGateway, type RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the tool-collision tests');

/**
 * Issue 25 finding 3 against two built gateways on one Redis: downstreams
 * `zeta` and `alpha` both declare `get_item`, with no prefix. The first
 * gateway starts while alpha is down, so it reads zeta's schema first; the
 * second starts with both up. Both must route `get_item` to the same
 * downstream (alpha: its name sorts first) once both are loaded, report the
 * collision, and never answer alpha's tool from an answer zeta gave.
 */
describe.runIf(available)('a tool name two downstreams declare, on two instances (dist/main.js, one Redis)', () => {
  let redis: RedisServer;
  let zeta: ControlledDownstream;
  let alpha: ControlledDownstream;
  const gateways: RunningProcess[] = [];
  let agent: TestAgent;

  const env = () => ({
    Gw__ToolRegistry__DownstreamBaseUrl: undefined,
    Gw__Downstreams__zeta__BaseUrl: zeta.url,
    Gw__Downstreams__alpha__BaseUrl: alpha.url,
  });

  /** One get_item call through `gateway`, on a session of its own. */
  async function getItem(gateway: RunningProcess, id: number) {
    const { sessionId } = await openRawSession(gateway.url, agent.token);
    return rawCall(gateway.url, agent.token, sessionId, 'tools/call', { name: 'get_item', arguments: { id } });
  }

  const readiness = async (gateway: RunningProcess) => (await fetch(`${gateway.url}/health/ready`)).json();

  beforeAll(async () => {
    redis = await startRedisServer();
    [zeta, alpha] = await Promise.all([startControlledDownstream(), startControlledDownstream()]);
    zeta.tools = alpha.tools = [GET_ITEM];
    await alpha.kill();
    gateways.push(await startGateway({ downstreamUrl: 'unused', redisUrl: redis.url, env: env() }));
    await waitUntilReady(gateways[0]!.url);
    const api = new GatewayClient(gateways[0]!.url);
    agent = await createAgentWithToken(api, await api.adminToken(), {
      label: 'collisions',
      dailyTokenBudget: 1_000_000,
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await Promise.all([zeta?.kill(), alpha?.kill()]);
    await redis?.stop();
  });

  it("moves the name to the downstream that sorts first once it loads, without serving the other one's cached answer", async () => {
    // Alpha is down: zeta alone declares get_item and serves it; its answer is cached.
    expect((await getItem(gateways[0]!, 7)).status).toBe(200);
    expect(zeta.hitsOn('/items/7')).toBe(1);

    await alpha.start();
    await eventually(
      () => readiness(gateways[0]!),
      (report) =>
        report.components?.['downstream:zeta']?.description?.includes('tool "get_item" refused: downstream alpha'),
      30_000,
    );
    const moved = await getItem(gateways[0]!, 7);
    expect(moved.status).toBe(200);
    expect(moved.message.result.isError).toBeFalsy();
    // Alpha answered it: neither zeta nor zeta's cached answer.
    expect(alpha.hitsOn('/items/7')).toBe(1);
    expect(zeta.hitsOn('/items/7')).toBe(1);
  }, 60_000);

  it('routes the name to the same downstream on a second instance that read both at once, and both report the collision', async () => {
    gateways.push(await startGateway({ downstreamUrl: 'unused', redisUrl: redis.url, env: env() }));
    await waitUntilReady(gateways[1]!.url);
    for (const [index, gateway] of gateways.entries()) {
      const report = await eventually(
        () => readiness(gateway),
        (body) =>
          body.components?.['downstream:alpha'] !== undefined || body.components?.['downstream:zeta'] !== undefined,
        20_000,
      );
      expect(report.components['downstream:zeta']).toMatchObject({
        status: 'Degraded',
        description: expect.stringContaining('tool "get_item" refused: downstream alpha serves a tool of that name'),
      });
      const before = alpha.hitsOn(`/items/${20 + index}`);
      expect((await getItem(gateway, 20 + index)).status).toBe(200);
      expect(alpha.hitsOn(`/items/${20 + index}`)).toBe(before + 1);
    }
    expect(zeta.hitsOn('/items/20') + zeta.hitsOn('/items/21')).toBe(0);
  }, 60_000);
});
