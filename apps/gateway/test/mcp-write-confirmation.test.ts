import { serve, type ServerType } from '@hono/node-server';
import { mapAgentToolSchema, withAgentTool } from '@tollgate/host-kit';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentAudit } from './support/audit.js';
import {
  createAgentWithToken,
  mcpRaw,
  openRawSession,
  rawCall,
  type McpExchange,
  type TestAgent,
} from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the write confirmation process test');
const MODERN = '2026-07-28';
const CONFIRM_INPUT = 'tollgate/confirm';
const NOTE = { text: 'ship it' };

/**
 * A downstream built with host-kit: `add_note` asks for confirmation
 * (`confirm: true`), `get_region` mirrors its route input into
 * `Mcp-Param-Region` (`paramHeaders`), `delete_note` is a plain write. Its
 * /gw/schema also carries, by hand, a tool whose x-mcp-header mark MCP
 * 2026-07-28 forbids (on a number), which the gateway must refuse to load.
 */
function downstreamApp(hits: string[]): Hono {
  const app = new Hono();
  app.use('/gw/schema', async (c, next) => {
    await next();
    const tools = (await c.res.json()) as Array<Record<string, unknown>>;
    const inputSchema = {
      type: 'object',
      properties: { region: { type: 'number', description: null, 'x-mcp-header': 'Ratio' } },
      required: ['region'],
    };
    const bad = {
      ...tools.find((tool) => tool.name === 'get_region')!,
      name: 'bad_mark',
      routePattern: '/ratios/{region}',
      inputSchema,
    };
    c.res = Response.json([...tools, bad]);
  });
  app.post(
    '/notes',
    withAgentTool({
      name: 'add_note',
      description: 'Adds a note.',
      allowWrite: true,
      confirm: true,
      input: { body: z.object({ text: z.string() }) },
    }),
    async (c) => {
      hits.push(`add_note ${JSON.stringify(await c.req.json())}`);
      return c.json({ added: true }, 201);
    },
  );
  app.delete(
    '/notes/:id',
    withAgentTool({ name: 'delete_note', description: 'Deletes a note.', allowWrite: true }),
    (c) => {
      hits.push(`delete_note ${c.req.param('id')}`);
      return c.json({ deleted: true });
    },
  );
  app.get(
    '/regions/:region',
    withAgentTool({ name: 'get_region', description: 'One region.', paramHeaders: { region: 'Region' } }),
    (c) => {
      hits.push(`get_region ${c.req.param('region')}`);
      return c.json({ region: c.req.param('region') });
    },
  );
  mapAgentToolSchema(app, { includeMappedEndpoints: true });
  return app;
}

async function serveDownstream(hits: string[]): Promise<{ url: string; close(): void }> {
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: downstreamApp(hits).fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => void server.close() };
}

let nextId = 1;
/** A 2026-07-28 tools/call with its envelope and headers; `extra` joins its params, `headers` its headers. */
function modernCall(
  url: string,
  agent: TestAgent,
  name: string,
  args: unknown,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<McpExchange> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'tools/call',
    params: { name, arguments: args, ...extra, _meta },
  };
  return mcpRaw(url, body, {
    token: agent.token,
    headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': name, ...headers },
  });
}

const accept = { [CONFIRM_INPUT]: { action: 'accept', content: { confirm: true } } };

describe.runIf(available)(
  'write confirmation and x-mcp-header parameters, end to end (dist/main.js, host-kit downstream, two instances on Redis)',
  { timeout: 40_000 },
  () => {
    const hits: string[] = [];
    let downstream: { url: string; close(): void };
    let pair: Pair<{ url: string; close(): void }, true>;
    let admin: string;

    beforeAll(async () => {
      downstream = await serveDownstream(hits);
      pair = await startPair({ downstream, redis: true, instances: 2 });
      admin = await pair.adminToken();
    });
    afterAll(async () => {
      await pair?.stop();
      downstream?.close();
    });

    const agent = (label: string, extra: Record<string, unknown> = {}) =>
      createAgentWithToken(pair.api, admin, { label, dailyTokenBudget: 100_000, ...extra });
    const used = async (who: TestAgent) =>
      (await pair.api.request('GET', `/management/agents/${who.agentId}/budget`, admin)).body.used;

    it('a confirm tool: asked on A (nothing sent or charged), the accepted retry served on B, its state refused when replayed on A; each step audited', async () => {
      const alice = await agent('alice');
      const [a, b] = [pair.gateways[0]!, pair.gateways[1]!];
      const first = await modernCall(a.url, alice, 'add_note', NOTE);
      expect(first.status).toBe(200);
      const asked = first.message.result;
      expect(asked).toMatchObject({
        resultType: 'input_required',
        inputRequests: { [CONFIRM_INPUT]: { method: 'elicitation/create', params: { mode: 'form' } } },
      });
      expect(asked.inputRequests[CONFIRM_INPUT].params.message).toMatch(
        /add_note on default \(POST \/notes\) with \{"text":"ship it"\}/,
      );
      expect(hits).not.toContain('add_note {"text":"ship it"}');
      expect(await used(alice)).toBe(0);

      const retry = await modernCall(b.url, alice, 'add_note', NOTE, {
        inputResponses: accept,
        requestState: asked.requestState,
      });
      expect(retry.status).toBe(200);
      expect(retry.message.result).toMatchObject({ resultType: 'complete', structuredContent: { added: true } });
      expect(hits.filter((hit) => hit === 'add_note {"text":"ship it"}')).toHaveLength(1);

      const replay = await modernCall(a.url, alice, 'add_note', NOTE, {
        inputResponses: accept,
        requestState: asked.requestState,
      });
      expect(replay.message.error).toMatchObject({ code: -32602, message: expect.stringMatching(/already used/) });
      const forged = await modernCall(a.url, alice, 'add_note', NOTE, {
        inputResponses: accept,
        requestState: `${asked.requestState}x`,
      });
      expect(forged.message.error).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/not one this gateway issued/),
      });
      expect(hits.filter((hit) => hit.startsWith('add_note'))).toHaveLength(1);
      // The trail is written in batches: waited for by its count, then read in full.
      const calls = async () =>
        (await agentAudit(pair.api, admin, alice.agentId)).filter((record) => record.kind === 'tool-call');
      const records = await eventually(calls, (found) => found.length >= 4);
      expect(records.map((record) => record.outcome).reverse()).toEqual([
        'input-required',
        'ok',
        'not-confirmed',
        'not-confirmed',
      ]);
      expect(records.map((record) => record.tokensCharged).reverse()).toEqual([0, expect.any(Number), 0, 0]);
    });

    it('declined: a tool error the model reads, nothing sent; a 2025 session is refused the tool, saying it needs 2026-07-28', async () => {
      const bob = await agent('bob');
      const asked = (await modernCall(pair.url, bob, 'add_note', { text: 'no' })).message.result;
      const declined = await modernCall(
        pair.url,
        bob,
        'add_note',
        { text: 'no' },
        { inputResponses: { [CONFIRM_INPUT]: { action: 'decline' } }, requestState: asked.requestState },
      );
      expect(declined.message.result).toMatchObject({
        isError: true,
        content: [{ text: expect.stringMatching(/did not confirm/) }],
      });
      const { sessionId } = await openRawSession(pair.url, bob.token, '2025-11-25');
      const old = await rawCall(pair.url, bob.token, sessionId, 'tools/call', {
        name: 'add_note',
        arguments: { text: 'no' },
      });
      expect(old.message.error).toMatchObject({ code: -32003, message: expect.stringMatching(/2026-07-28/) });
      expect(hits.filter((hit) => hit === 'add_note {"text":"no"}')).toHaveLength(0);
      expect(await used(bob)).toBe(0);
    });

    it('confirmWrites on the agent (management API) asks for a plain write tool too; an agent without it is not asked', async () => {
      const careful = await agent('careful', { confirmWrites: true });
      expect((await pair.api.request('GET', `/management/agents/${careful.agentId}`, admin)).body).toMatchObject({
        confirmWrites: true,
      });
      expect((await modernCall(pair.url, careful, 'delete_note', { id: '7' })).message.result.resultType).toBe(
        'input_required',
      );
      expect(hits).not.toContain('delete_note 7');
      const hasty = await agent('hasty');
      expect((await modernCall(pair.url, hasty, 'delete_note', { id: '8' })).message.result.resultType).toBe(
        'complete',
      );
      expect(hits).toContain('delete_note 8');
      expect(
        (await pair.api.request('PUT', `/management/agents/${hasty.agentId}`, admin, { confirmWrites: 'yes' })).status,
      ).toBe(400);
    });

    it('x-mcp-header: a marked parameter must arrive mirrored as Mcp-Param-Region; a tool with a forbidden mark is not served', async () => {
      const carol = await agent('carol');
      const bare = await modernCall(pair.url, carol, 'get_region', { region: 'eu-west' });
      expect(bare.status).toBe(400);
      expect(bare.message.error).toMatchObject({
        code: -32020,
        message: expect.stringMatching(/Mcp-Param-region header is required/),
      });
      const wrong = await modernCall(
        pair.url,
        carol,
        'get_region',
        { region: 'eu-west' },
        {},
        { 'Mcp-Param-Region': 'us-east' },
      );
      expect(wrong.status).toBe(400);
      expect(hits).not.toContain('get_region eu-west');
      const mirrored = await modernCall(
        pair.url,
        carol,
        'get_region',
        { region: 'eu-west' },
        {},
        { 'Mcp-Param-Region': 'eu-west' },
      );
      expect(mirrored.message.result).toMatchObject({ structuredContent: { region: 'eu-west' } });
      expect(hits).toContain('get_region eu-west');

      const listed = await mcpRaw(
        pair.url,
        {
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/list',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': MODERN,
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        },
        {
          token: carol.token,
          headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/list' },
        },
      );
      const tools = listed.message.result.tools as Array<{
        name: string;
        inputSchema: { properties: Record<string, Record<string, unknown>> };
      }>;
      expect(tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'delete_note', 'get_region']);
      expect(tools.find((tool) => tool.name === 'get_region')!.inputSchema.properties.region).toMatchObject({
        'x-mcp-header': 'Region',
      });
    });
  },
);
