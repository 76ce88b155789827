import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { HttpForwarder } from '../forward/forwarder.js';
import { checkDownstreamHeaders } from '../forward/headers.js';
import { createResilientForwarder } from '../resilience/resilient-forwarder.js';
import { getCustomer } from '../testing/tool-fixtures.js';
import { parseToolDefinitions, type ToolDefinition } from '../tools/definition.js';
import { GatewayAssertionSigner } from './assertion-signer.js';

/** A downstream that writes down each request's assertion and answers with the next status in line. */
let server: Server;
let baseUrl: string;
let assertions: Array<string | undefined> = [];
let statuses: number[] = [];
const forwarders: HttpForwarder[] = [];
const signer = new GatewayAssertionSigner({ signingKey: 'test-signing-key-that-is-at-least-32-bytes-long' });
const tool: ToolDefinition = parseToolDefinitions([getCustomer]).tools[0]!;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume().on('end', () => {
      assertions.push(request.headers['tollgate-assertion'] as string | undefined);
      response.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});

afterEach(async () => {
  await Promise.all(forwarders.splice(0).map((forwarder) => forwarder.close()));
  assertions = [];
  statuses = [];
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

function forwarder(options: Partial<ConstructorParameters<typeof HttpForwarder>[0]> = {}): HttpForwarder {
  const created = new HttpForwarder({ baseUrl, assertion: { signer }, ...options });
  forwarders.push(created);
  return created;
}

async function claims(token: string | undefined, audience = baseUrl): Promise<JWTPayload> {
  expect(token).toBeDefined();
  return (
    await jwtVerify(token!, createLocalJWKSet(signer.jwks()), { algorithms: ['ES256'], issuer: 'tollgate', audience })
  ).payload;
}

const WHO = { agentId: 'agt_7', scopes: ['customers:read'], callId: 'call-42' };

describe('the assertion on forwarded calls', () => {
  it('is sent on a forwarded call, naming the agent, the tool, the scopes, the call and the downstream (its base URL by default)', async () => {
    await forwarder().forward(tool, { id: 'c1' }, undefined, WHO);
    expect(await claims(assertions[0])).toMatchObject({
      sub: 'agt_7',
      tool: 'getCustomer',
      scope: 'customers:read',
      call_id: 'call-42',
      aud: baseUrl,
    });
  });

  it('names the configured audience when one is given', async () => {
    await forwarder({ assertion: { signer, audience: 'orders-api' } }).forward(tool, { id: 'c1' }, undefined, WHO);
    expect((await claims(assertions[0], 'orders-api')).aud).toBe('orders-api');
  });

  it('is not sent when the forwarder has no signer', async () => {
    await forwarder({ assertion: undefined }).forward(tool, { id: 'c1' }, undefined, WHO);
    expect(assertions).toEqual([undefined]);
  });

  it('is signed again for each retry: the same call id, a new jti, so a replay check never refuses a retry', async () => {
    statuses = [503, 503, 200];
    const resilient = createResilientForwarder(forwarder(), { retry: { retries: 2, minDelayMs: 1, maxDelayMs: 1 } });
    await resilient.forward(tool, { id: 'c1' }, undefined, WHO);
    expect(assertions).toHaveLength(3);
    const attempts = await Promise.all(assertions.map((token) => claims(token)));
    expect(new Set(attempts.map((attempt) => attempt.call_id))).toEqual(new Set(['call-42']));
    expect(new Set(attempts.map((attempt) => attempt.jti)).size).toBe(3);
  });

  it('gives each call its own id when the caller names none', async () => {
    const plain = forwarder();
    await plain.forward(tool, { id: 'c1' }, undefined, { agentId: 'agt_7' });
    await plain.forward(tool, { id: 'c1' }, undefined, { agentId: 'agt_7' });
    const [first, second] = await Promise.all(assertions.map((token) => claims(token)));
    expect(first!.call_id).not.toBe(second!.call_id);
    expect(first!.scope).toBe('');
  });

  it('cannot be configured as a downstream header', () => {
    expect(() => checkDownstreamHeaders({ 'Tollgate-Assertion': 'forged' })).toThrow(ConfigError);
  });
});
