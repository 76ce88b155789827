import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentWithToken, openRawSession, rawCall, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { TEST_ADMIN_KEY } from './support/processes.js';
import { parseRawResponse, rawUpload } from './support/raw-http.js';
import { GET_ITEM_TOOL, type RecordingDownstream } from './support/recording-downstream.js';

const ERROR_META = 'io.tollgate/error';
const BUDGET = 50_000;

/** A GET whose argument travels in the query string. */
const SEARCH_ITEMS_TOOL = {
  ...GET_ITEM_TOOL,
  name: 'search_items',
  description: 'Items matching a text.',
  routePattern: '/items',
  parameterSources: { q: 'query' },
  inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'Text' } }, required: ['q'] },
};

/**
 * Issue 15 item 5, the smaller ones, against the built gateway with MCP's
 * default error delivery: values that cannot be percent-encoded, audit
 * cursors no store can use, and the management 413's connection handling.
 */
describe('hostile input, the smaller ones (dist/main.js)', () => {
  let pair: Pair<RecordingDownstream>;
  let recorder: RecordingDownstream;
  let url: string;
  let admin: string;
  let agent: TestAgent;

  beforeAll(async () => {
    pair = await startPair({ downstream: { recording: [GET_ITEM_TOOL, SEARCH_ITEMS_TOOL] } });
    ({ downstream: recorder, url } = pair);
    admin = await pair.adminToken();
    agent = await createAgentWithToken(pair.api, admin, { label: 'surrogates', dailyTokenBudget: BUDGET });
  });
  afterAll(() => pair?.stop());

  async function callIn(version: string, name: string, args: Record<string, unknown>) {
    const { sessionId } = await openRawSession(url, agent.token, version);
    return rawCall(url, agent.token, sessionId, 'tools/call', { name, arguments: args });
  }

  describe('a value that cannot be percent-encoded (a lone surrogate)', () => {
    // JSON text may spell half a UTF-16 pair; JSON.stringify writes '\ud800' as the escape "\ud800".
    it.each([
      ['get_item', 'id', { id: '\ud800' }],
      ['get_item', 'id', { id: 'abc\udfff' }],
      ['search_items', 'q', { q: 'x\ud83d' }],
    ])(
      '%s with %s: a tool error naming the argument (2025-11-25), -32602 in HTTP 200 before; nothing forwarded',
      async (tool, argument, args) => {
        const before = recorder.requests.length;
        const current = await callIn('2025-11-25', tool, args);
        expect(current.status).toBe(200);
        expect(current.message.result).toMatchObject({
          isError: true,
          _meta: { [ERROR_META]: { code: -32602, kind: 'invalid-arguments', fields: [{ path: argument }] } },
        });
        expect(current.message.result.content[0].text).toMatch(/lone surrogate/);

        const older = await callIn('2025-06-18', tool, args);
        expect(older.status).toBe(200);
        expect(older.message.error).toMatchObject({ code: -32602, data: { fields: [{ path: argument }] } });
        expect(recorder.requests.slice(before)).toEqual([]);
      },
    );

    it('still forwards a well-formed pair, percent-encoded as UTF-8', async () => {
      const reply = await callIn('2025-11-25', 'get_item', { id: 'a\ud83d\ude00' });
      expect(reply.status).toBe(200);
      expect(reply.message.result.isError).toBeFalsy();
      expect(recorder.requests.at(-1)?.target).toBe('/items/a%F0%9F%98%80');
    });

    it('charged nothing, audited the refusals as invalid-arguments, and logged no stack', async () => {
      const budget = await pair.api.request('GET', `/management/agents/${agent.agentId}/budget`, admin);
      // Only the well-formed call is charged.
      const audit = await pair.api.request(
        'GET',
        `/management/agents/${agent.agentId}/audit?outcome=invalid-arguments&limit=50`,
        admin,
      );
      expect(audit.body.records).toHaveLength(6);
      expect(audit.body.records.every((record: { tokensCharged: number }) => record.tokensCharged === 0)).toBe(true);
      const ok = await pair.api.request('GET', `/management/agents/${agent.agentId}/audit?outcome=ok&limit=50`, admin);
      expect(budget.body.used).toBe(
        ok.body.records.reduce((sum: number, record: { tokensCharged: number }) => sum + record.tokensCharged, 0),
      );
      expect(pair.gateway.output()).not.toMatch(/URIError|unexpected error|\n\s+at /);
    });
  });

  describe('audit cursors', () => {
    it.each(['0-0', '00-000', '0000000000000000-0000000000000000'])(
      'answers before=%s with 400 naming the field, never 500',
      async (before) => {
        for (const path of ['/management/audit', `/management/agents/${agent.agentId}/audit`]) {
          const reply = await pair.api.request('GET', `${path}?before=${before}`, admin);
          expect(reply.status).toBe(400);
          expect(JSON.stringify(reply.body)).toMatch(/before/);
        }
      },
    );

    it('answers the smallest and largest usable cursors with a page', async () => {
      expect((await pair.api.request('GET', '/management/audit?before=0-1', admin)).body).toEqual({
        records: [],
        nextCursor: null,
      });
      const largest = await pair.api.request(
        'GET',
        '/management/audit?before=9999999999999999-9999999999999999&limit=1',
        admin,
      );
      expect(largest.status).toBe(200);
      expect(largest.body.records).toHaveLength(1);
    });
  });

  describe('a sign-in body over its 16 KiB limit: the whole 413, Connection: close, then the connection ends', () => {
    const head = (framing: string) =>
      ['POST /auth/admin/token HTTP/1.1', `Host: ${new URL(url).host}`, 'Content-Type: application/json', framing].join(
        '\r\n',
      );
    const pad = 'k'.repeat(64 * 1024);
    const upload = [`{"apiKey":"${TEST_ADMIN_KEY}","pad":"`, ...Array.from({ length: 40 }, () => pad), '"}'];

    it.each([
      [
        'a declared Content-Length, body still coming',
        () => rawUpload(url, head(`Content-Length: ${upload.join('').length}`), upload),
      ],
      ['a declared Content-Length, no body sent', () => rawUpload(url, head('Content-Length: 1073741824'), [])],
      ['a chunked body', () => rawUpload(url, head('Transfer-Encoding: chunked'), upload, { chunked: true })],
    ])('%s', async (_, send) => {
      const { received, ended } = await send();
      const reply = parseRawResponse(received);
      expect(reply.status).toBe(413);
      expect(reply.headers.connection).toBe('close');
      expect(reply.complete).toBe(true);
      expect(JSON.parse(reply.body)).toMatchObject({ status: 413, detail: 'Request body is larger than 16384 bytes' });
      expect(ended).not.toBe('still-open');
    });
  });
});
