import { startRedisServer, type RedisServer } from '@tollgate/gateway-core/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentAudit } from './support/audit.js';
import { GET_ITEM } from './support/controlled-downstream.js';
import { GatewayClient } from './support/gateway-client.js';
import {
  createAgentWithToken,
  openRawSession,
  rawCall,
  waitUntilReady,
  type McpExchange,
  type TestAgent,
} from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import {
  GATEWAY_MAIN,
  gatewayEnv,
  runToExit,
  startDownstream,
  startGateway,
  type RunningProcess,
} from './support/processes.js';
import { monitorRedis, type RedisMonitor } from './support/redis-monitor.js';
import { redisServerAvailable } from './support/redis-guard.js';

const redisAvailable = redisServerAvailable('the check that no personal data reaches Redis (privacy test)');

interface Customer {
  id: number;
  name: string;
  email: string;
  phone: string;
  city: string;
}

/**
 * Privacy rules at process level (issue 7): the sample downstream's customer
 * emails and phone numbers never reach an agent, the cache, the audit trail,
 * the store or a log line; configured fields, rules and per-tool overrides
 * take effect; a bad rule refuses start-up.
 */
describe('privacy rules (dist/main.js + sample downstream)', () => {
  let downstream: RunningProcess;
  /** The seed customers as the downstream really serves them. */
  let customers: Customer[];
  /** Every email and phone number of the seed customers. */
  let personalData: string[];

  beforeAll(async () => {
    downstream = await startDownstream();
    const raw = (await fetch(`${downstream.url}/customers?limit=100`).then((response) => response.json())) as {
      customers: Customer[];
    };
    customers = raw.customers;
    expect(customers.length).toBe(12);
    personalData = customers.flatMap((customer) => [customer.email, customer.phone]);
  });
  afterAll(async () => {
    await downstream?.stop();
  });

  const resultOf = (reply: McpExchange) => {
    expect(reply.status).toBe(200);
    return reply.message.result as { content: Array<{ text: string }>; structuredContent?: unknown };
  };

  function expectNoPersonalData(text: string): void {
    for (const value of personalData) expect(text).not.toContain(value);
  }

  describe('default detectors, plus a field and a rule from Gw:Privacy:* variables', () => {
    let redis: RedisServer | undefined;
    let monitor: RedisMonitor | undefined;
    let gateway: RunningProcess;
    let api: GatewayClient;
    let admin: string;
    let reader: TestAgent;

    beforeAll(async () => {
      if (redisAvailable) {
        redis = await startRedisServer();
        monitor = await monitorRedis(redis.url);
      }
      gateway = await startGateway({
        downstreamUrl: downstream.url,
        redisUrl: redis?.url,
        env: {
          Gw__Privacy__Fields__0: 'city',
          Gw__Privacy__Rules__0__Name: 'entrance',
          Gw__Privacy__Rules__0__Pattern: 'back entrance',
        },
      });
      await waitUntilReady(gateway.url);
      api = new GatewayClient(gateway.url);
      admin = await api.adminToken();
      reader = await createAgentWithToken(api, admin, {
        label: 'privacy reader',
        dailyTokenBudget: 1_000_000,
        scopes: ['customers:read'],
      });
    });
    afterAll(async () => {
      await gateway?.stop();
      monitor?.stop();
      await redis?.stop();
    });

    it('list_customers shows no email or phone, in the text or in structuredContent; the rest is left as it was', async () => {
      const { sessionId } = await openRawSession(gateway.url, reader.token, '2025-06-18');
      const result = resultOf(
        await rawCall(gateway.url, reader.token, sessionId, 'tools/call', {
          name: 'list_customers',
          arguments: { limit: 100 },
        }),
      );
      const text = result.content[0]!.text;
      expectNoPersonalData(text);
      expectNoPersonalData(JSON.stringify(result.structuredContent));
      const shown = JSON.parse(text) as { total: number; customers: Customer[] };
      expect(result.structuredContent).toEqual(shown);
      expect(shown.customers).toEqual(
        customers.map((customer) => ({
          ...customer,
          email: '[REDACTED:email]',
          phone: '[REDACTED:phone]',
          city: '[REDACTED:field]',
        })),
      );
    });

    it('get_customer shows no email or phone for any customer', async () => {
      const { sessionId } = await openRawSession(gateway.url, reader.token, '2025-06-18');
      for (const customer of customers) {
        const result = resultOf(
          await rawCall(gateway.url, reader.token, sessionId, 'tools/call', {
            name: 'get_customer',
            arguments: { id: customer.id },
          }),
        );
        expect(JSON.parse(result.content[0]!.text)).toMatchObject({
          id: customer.id,
          name: customer.name,
          email: '[REDACTED:email]',
          phone: '[REDACTED:phone]',
        });
        expectNoPersonalData(JSON.stringify(result));
      }
    });

    it('applies a rule from the variables to every tool (get_order note)', async () => {
      const { sessionId } = await openRawSession(gateway.url, reader.token);
      const result = resultOf(
        await rawCall(gateway.url, reader.token, sessionId, 'tools/call', {
          name: 'get_order',
          arguments: { id: 1001 },
        }),
      );
      expect(JSON.parse(result.content[0]!.text)).toMatchObject({
        id: 1001,
        note: 'Please deliver to the [REDACTED:entrance]',
      });
    });

    it('answers a repeated call from the cache, still filtered', async () => {
      const { sessionId } = await openRawSession(gateway.url, reader.token, '2025-06-18');
      const call = () =>
        rawCall(gateway.url, reader.token, sessionId, 'tools/call', { name: 'get_customer', arguments: { id: 3 } });
      const first = resultOf(await call());
      const second = resultOf(await call());
      expect(second).toEqual(first);
      expectNoPersonalData(JSON.stringify(second));
      const [last] = (await agentAudit(api, admin, reader.agentId)).filter((record) => record.tool === 'get_customer');
      expect(last).toMatchObject({ outcome: 'cache-hit', cacheTier: 'exact' });
    });

    it('keeps every email and phone number out of the audit records and the log lines', async () => {
      // A search whose arguments name no one, so only the response could carry personal data into a record.
      const { sessionId } = await openRawSession(gateway.url, reader.token);
      resultOf(
        await rawCall(gateway.url, reader.token, sessionId, 'tools/call', {
          name: 'list_customers',
          arguments: { search: 'example', limit: 5 },
        }),
      );
      const records = await agentAudit(api, admin, reader.agentId);
      expect(records.length).toBeGreaterThan(12);
      expectNoPersonalData(JSON.stringify(records));
      const all = await api.request('GET', '/management/audit?limit=500', admin);
      expectNoPersonalData(JSON.stringify(all.body));
      const log = gateway.output();
      expect(log).toContain('"msg":"audit"');
      expectNoPersonalData(log);
    });

    it.runIf(redisAvailable)(
      'never sends an email or phone number to Redis (every command the store received)',
      async () => {
        const sent = monitor!.commands();
        // The monitor did see the cached answers: the filtered text went to the store.
        expect(sent).toContain('[REDACTED:email]');
        expectNoPersonalData(sent);
      },
    );
  });

  describe('a rules file and a per-tool override', () => {
    let directory: string;
    let pair: Pair;
    let gateway: RunningProcess;
    let reader: TestAgent;

    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), 'tollgate-privacy-'));
      const rulesFile = join(directory, 'privacy.json');
      writeFileSync(
        rulesFile,
        JSON.stringify({
          fields: ['name'],
          rules: [{ name: 'sku', pattern: '([A-Z]{2})-(\\d)\\d\\d', replacement: '$1-$2**' }],
        }),
      );
      pair = await startPair({
        downstream,
        gateway: { env: { Gw__Privacy__RulesFile: rulesFile, Gw__Privacy__Tools__get_customer__Enabled: 'false' } },
      });
      ({ gateway } = pair);
      reader = await createAgentWithToken(pair.api, await pair.adminToken(), {
        label: 'override reader',
        dailyTokenBudget: 1_000_000,
        scopes: ['customers:read'],
      });
    });
    afterAll(async () => {
      await pair?.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    const call = async (name: string, args: Record<string, unknown>) => {
      const { sessionId } = await openRawSession(gateway.url, reader.token);
      return JSON.parse(
        resultOf(await rawCall(gateway.url, reader.token, sessionId, 'tools/call', { name, arguments: args }))
          .content[0]!.text,
      );
    };

    it('leaves the one tool whose filtering is turned off unfiltered', async () => {
      const ada = customers[0]!;
      expect(await call('get_customer', { id: ada.id })).toEqual(ada);
    });

    it('filters every other tool with the defaults plus the fields and rules of the file', async () => {
      const listed = (await call('list_customers', { limit: 100 })) as { customers: Customer[] };
      expectNoPersonalData(JSON.stringify(listed));
      expect(listed.customers[0]).toMatchObject({
        name: '[REDACTED:field]',
        email: '[REDACTED:email]',
        phone: '[REDACTED:phone]',
        city: customers[0]!.city,
      });
      expect(await call('get_product', { sku: 'KB-100' })).toMatchObject({ sku: 'KB-1**', name: '[REDACTED:field]' });
    });
  });

  describe('invalid rule configuration refuses start-up', () => {
    let directory: string;
    beforeAll(() => {
      directory = mkdtempSync(join(tmpdir(), 'tollgate-privacy-bad-'));
      writeFileSync(join(directory, 'broken.json'), '{"fields": [');
      writeFileSync(
        join(directory, 'unknown-detector.json'),
        JSON.stringify({ tools: { get_order: { disabledDetectors: ['telepathy'] } } }),
      );
    });
    afterAll(() => rmSync(directory, { recursive: true, force: true }));

    const refusals: Array<[string, () => Record<string, string>, RegExp]> = [
      [
        'a pattern that does not compile',
        () => ({ Gw__Privacy__Rules__0__Name: 'broken', Gw__Privacy__Rules__0__Pattern: '([a-z]' }),
        /^tollgate: refusing to start: Gw:Privacy:Rules:0:Pattern: /,
      ],
      [
        'a pattern that matches the empty string',
        () => ({ Gw__Privacy__Rules__0__Name: 'empty', Gw__Privacy__Rules__0__Pattern: 'x*' }),
        /^tollgate: refusing to start: Gw:Privacy:Rules:0:Pattern: /,
      ],
      [
        'a pattern the linear-time engine cannot run (backreference)',
        () => ({ Gw__Privacy__Rules__0__Name: 'backref', Gw__Privacy__Rules__0__Pattern: '(a+)\\1' }),
        /^tollgate: refusing to start: Gw:Privacy:Rules:0:Pattern: /,
      ],
      [
        'a rule without a name',
        () => ({ Gw__Privacy__Rules__0__Pattern: 'secret-\\d+' }),
        /^tollgate: refusing to start: Gw:Privacy:Rules:0:Name: /,
      ],
      [
        'an unknown detector',
        () => ({ Gw__Privacy__DisabledDetectors__0: 'telepathy' }),
        /^tollgate: refusing to start: Gw:Privacy:DisabledDetectors:0: /,
      ],
      [
        'a missing rules file',
        () => ({ Gw__Privacy__RulesFile: join(directory, 'absent.json') }),
        /^tollgate: refusing to start: Gw:Privacy:RulesFile: /,
      ],
      [
        'a rules file that is not JSON',
        () => ({ Gw__Privacy__RulesFile: join(directory, 'broken.json') }),
        /^tollgate: refusing to start: Gw:Privacy:RulesFile: /,
      ],
      [
        'a rules file naming an unknown detector',
        () => ({ Gw__Privacy__RulesFile: join(directory, 'unknown-detector.json') }),
        /^tollgate: refusing to start: Gw:Privacy:RulesFile: .*tools\.get_order\.disabledDetectors\[0\]/,
      ],
    ];

    it.each(refusals)('%s: exit 1 with one line naming the key, no stack trace', async (_, env, line) => {
      const result = await runToExit(GATEWAY_MAIN, gatewayEnv({ downstreamUrl: downstream.url, env: env() }));
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(line);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  });
  /**
   * Issue 16: what the red team walked around the filter with. A downstream
   * of our own answers card, phone and SSN numbers as JSON numbers; card
   * numbers, an IBAN and an SSN written with other separators, zero-width
   * characters and full-width digits; encoded and look-alike e-mail
   * addresses and passwords inside strings.
   */
  describe('JSON numbers and separator evasions (issue 16)', () => {
    const fullWidth = (digits: string) =>
      [...digits].map((digit) => String.fromCharCode(0xff10 + Number(digit))).join('');
    const answers: Record<string, unknown> = {
      '1': {
        id: 1,
        cc: 4012888888881881,
        homePhone: 442079460958,
        customerSsn: 287654321,
        total: 129.99,
        placedAt: 1700000000004,
        orderId: 1234567890123456,
      },
      '2': {
        id: 2,
        note: 'card 5105\u00A01051\u00A00510\u00A05100 ok',
        dashed: '3782\u2013822463\u201310005',
        hidden: '6011\u200B0009\u200B9013\u200B9424',
        wide: fullWidth('4000056655665556'),
        account: 'de89-3704-0044-0532-0130-00',
        memo: 'SSN: 287\u00A065\u00A04321',
        trackingId: '123e4567-e89b-12d3-a456-426614174000',
      },
      '3': {
        id: 3,
        link: 'mailto:zelda%40example.com',
        html: 'write to yorick&#64;example.org',
        blob: Buffer.from('xavier@example.net').toString('base64'),
        contact: 'wanda@ex\u0430mple.com',
        local: 'root@localhost',
        log: 'login user=dave password=hunter2 ok',
        config: 'DB_PASSWORD=s3cr3t-Pa55',
        dbPassword: 'correct horse',
      },
    };
    /** Every secret as sent, and as redis-server's MONITOR prints it (bytes past ASCII as `\\xHH`). */
    const secrets = [
      '4012888888881881',
      '442079460958',
      '287654321',
      '5105\u00A01051\u00A00510\u00A05100',
      '3782\u2013822463\u201310005',
      '6011\u200B0009\u200B9013\u200B9424',
      fullWidth('4000056655665556'),
      'de89-3704-0044-0532-0130-00',
      '287\u00A065\u00A04321',
      'zelda%40example.com',
      'zelda@example.com',
      'yorick&#64;example.org',
      'yorick@example.org',
      Buffer.from('xavier@example.net').toString('base64'),
      'xavier@example.net',
      'wanda@ex\u0430mple.com',
      'root@localhost',
      'hunter2',
      's3cr3t-Pa55',
      'correct horse',
    ];
    const monitorForm = (text: string) =>
      [...Buffer.from(text)]
        .map((byte) => (byte < 0x80 ? String.fromCharCode(byte) : `\\x${byte.toString(16)}`))
        .join('');
    const leaks = [...secrets, ...secrets.map(monitorForm)];

    let server: Server;
    let pair: Pair<{ url: string }, boolean>;
    let reader: TestAgent;
    let admin: string;
    let monitor: RedisMonitor | undefined;

    beforeAll(async () => {
      server = createServer((request, response) => {
        response.setHeader('Content-Type', 'application/json');
        if (request.url === '/gw/schema')
          return void response.end(
            JSON.stringify([
              { ...GET_ITEM, name: 'get_record', routePattern: '/records/{id}', maxResponseTokens: 2000 },
            ]),
          );
        const answer = answers[(request.url ?? '').split('/').pop() ?? ''];
        response.statusCode = answer === undefined ? 404 : 200;
        response.end(JSON.stringify(answer ?? { error: 'not found' }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      pair = await startPair({
        downstream: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
        redis: redisAvailable,
      });
      if (pair.redis) monitor = await monitorRedis(pair.redis.url);
      admin = await pair.adminToken();
      reader = await createAgentWithToken(pair.api, admin, {
        label: 'evasion reader',
        dailyTokenBudget: 1_000_000,
        scopes: [],
      });
    });
    afterAll(async () => {
      monitor?.stop();
      await pair?.stop();
      await new Promise((resolve) => server?.close(resolve));
    });

    const call = async (id: number) => {
      const { sessionId } = await openRawSession(pair.url, reader.token, '2025-06-18');
      return resultOf(
        await rawCall(pair.url, reader.token, sessionId, 'tools/call', { name: 'get_record', arguments: { id } }),
      );
    };

    function expectNoLeak(text: string): void {
      for (const leak of leaks) expect(text).not.toContain(leak);
    }

    it('redacts card, phone and SSN numbers sent as JSON numbers (the value becomes the marker string); prices, timestamps and order ids stay', async () => {
      const result = await call(1);
      const expected = {
        id: 1,
        cc: '[REDACTED:card]',
        homePhone: '[REDACTED:phone]',
        customerSsn: '[REDACTED:ssn]',
        total: 129.99,
        placedAt: 1700000000004,
        orderId: 1234567890123456,
      };
      expect(JSON.parse(result.content[0]!.text)).toEqual(expected);
      expect(result.structuredContent).toEqual(expected);
    });

    it('redacts card numbers, an IBAN and an SSN written with no-break spaces, dashes, zero-width characters or full-width digits', async () => {
      const result = await call(2);
      const expected = {
        id: 2,
        note: 'card [REDACTED:card] ok',
        dashed: '[REDACTED:card]',
        hidden: '[REDACTED:card]',
        wide: '[REDACTED:card]',
        account: '[REDACTED:iban]',
        memo: 'SSN: [REDACTED:ssn]',
        trackingId: '123e4567-e89b-12d3-a456-426614174000',
      };
      expect(JSON.parse(result.content[0]!.text)).toEqual(expected);
      expect(result.structuredContent).toEqual(expected);
      expectNoLeak(JSON.stringify(result));
    });

    it('redacts e-mail addresses URL-, entity- and base64-encoded, with a look-alike domain or on localhost, and passwords inside strings', async () => {
      const result = await call(3);
      const expected = {
        id: 3,
        link: 'mailto:[REDACTED:email]',
        html: 'write to [REDACTED:email]',
        blob: '[REDACTED:email]',
        contact: '[REDACTED:email]',
        local: '[REDACTED:email]',
        log: 'login user=dave password=[REDACTED:credential] ok',
        config: 'DB_PASSWORD=[REDACTED:credential]',
        dbPassword: '[REDACTED:credential]',
      };
      expect(JSON.parse(result.content[0]!.text)).toEqual(expected);
      expect(result.structuredContent).toEqual(expected);
      expectNoLeak(JSON.stringify(result));
    });

    it('serves the repeated calls from the cache, still redacted, and keeps every leak out of the audit, the log and Redis', async () => {
      for (const id of [1, 2, 3]) expectNoLeak(JSON.stringify(await call(id)));
      const records = (await agentAudit(pair.api, admin, reader.agentId)).filter(
        (record) => record.tool === 'get_record',
      );
      expect(records.map((record) => record.outcome).sort()).toEqual([
        'cache-hit',
        'cache-hit',
        'cache-hit',
        'ok',
        'ok',
        'ok',
      ]);
      expectNoLeak(JSON.stringify(records));
      expectNoLeak(JSON.stringify((await pair.api.request('GET', '/management/audit?limit=500', admin)).body));
      expect(pair.gateway.output()).toContain('"msg":"audit"');
      expectNoLeak(pair.gateway.output());
      if (monitor) {
        expect(monitor.commands()).toContain('[REDACTED:card]');
        expectNoLeak(monitor.commands());
      }
    });
  });
});
