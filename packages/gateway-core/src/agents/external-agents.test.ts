import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../audit/trail.js';
import {
  ExternalTokens,
  type AgentTemplate,
  type ExternalIdentity,
  type TrustedIssuer,
} from '../auth/external-tokens.js';
import { TokenService } from '../auth/token-service.js';
import { InvalidInputError, StoreUnavailableError, SubjectTakenError, UnauthorizedError } from '../errors.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { AgentRecord, ExternalSubject } from '../store/ports.js';
import { labelProblem } from '../auth/identifiers.js';
import { AgentService } from './agent-service.js';
import { ExternalAgents } from './external-agents.js';

const IDP = 'https://idp.example.com/realms/main';
const OTHER_IDP = 'https://login.example.org/tenant';
const AUDIENCE = 'https://gw.example.com/mcp';
const TEMPLATE: AgentTemplate = {
  dailyTokenBudget: 5000,
  allowedTools: ['getCustomer', 'createOrder'],
  scopes: ['orders:read', 'orders:write'],
};

function identity(subject: string, issuer = IDP, scopes: string[] = []): ExternalIdentity {
  return {
    issuer,
    subject,
    scopes,
    tokenId: `jti-${subject}`,
    issuedAt: new Date('2030-06-15T10:00:00Z'),
    expiresAt: new Date('2030-06-15T11:00:00Z'),
  };
}

async function unauthorized(attempt: Promise<unknown>): Promise<string> {
  const error = await attempt.then(
    () => expect.unreachable('the credential was accepted'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  expect(error).toMatchObject({ httpStatus: 401 });
  return (error as UnauthorizedError).reason;
}

describe('ExternalAgents', () => {
  function setup(options: { provision?: AgentTemplate } = {}) {
    const store = createMemoryStore();
    let now = 1_000_000;
    const lookups: ExternalSubject[] = [];
    const provisioned: ExternalSubject[] = [];
    const agents = {
      findByExternalSubject: (subject: ExternalSubject) => {
        lookups.push(subject);
        return store.agents.findByExternalSubject(subject);
      },
    };
    const external = new ExternalAgents({
      agents,
      issuers: [
        { issuer: IDP, audience: AUDIENCE, ...(options.provision ? { provision: options.provision } : {}) },
        { issuer: OTHER_IDP, audience: AUDIENCE },
      ],
      provision: async (subject, template) => {
        provisioned.push(subject);
        const agent = record(`agt_p${provisioned.length}`, { ...template, externalSubjects: [subject] });
        await store.agents.create(agent);
        return agent;
      },
      clock: () => now,
    });
    return { store, external, lookups, provisioned, advance: (ms: number) => (now += ms) };
  }

  function record(agentId: string, fields: Partial<AgentRecord> = {}): AgentRecord {
    return {
      agentId,
      label: agentId,
      dailyTokenBudget: 1,
      isActive: true,
      allowedTools: null,
      scopes: [],
      externalSubjects: [],
      rateLimit: null,
      createdAt: 'x',
      updatedAt: 'x',
      ...fields,
    };
  }

  it('maps an identity to the agent that lists it, per issuer', async () => {
    const { store, external } = setup();
    await store.agents.create(record('agt_a', { externalSubjects: [{ issuer: IDP, subject: 'alice' }] }));
    await store.agents.create(record('agt_b', { externalSubjects: [{ issuer: OTHER_IDP, subject: 'alice' }] }));
    expect(await external.agentIdFor(identity('alice'))).toBe('agt_a');
    expect(await external.agentIdFor(identity('alice', OTHER_IDP))).toBe('agt_b');
  });

  it('refuses an identity no agent lists when its issuer does not provision (401 unknown-agent)', async () => {
    const { external, provisioned } = setup();
    expect(await unauthorized(external.agentIdFor(identity('nobody')))).toBe('unknown-agent');
    expect(provisioned).toEqual([]);
  });

  it('provisions only for the issuer that allows it', async () => {
    const { external, provisioned } = setup({ provision: TEMPLATE });
    expect(await external.agentIdFor(identity('carol'))).toBe('agt_p1');
    expect(provisioned).toEqual([{ issuer: IDP, subject: 'carol' }]);
    expect(await unauthorized(external.agentIdFor(identity('carol', OTHER_IDP)))).toBe('unknown-agent');
  });

  it('remembers a mapping for 10 s, asks the store again after, and at once after forget', async () => {
    const { store, external, lookups, advance } = setup();
    await store.agents.create(record('agt_a', { externalSubjects: [{ issuer: IDP, subject: 'alice' }] }));
    await external.agentIdFor(identity('alice'));
    await external.agentIdFor(identity('alice'));
    expect(lookups).toHaveLength(1);
    advance(10_001);
    await external.agentIdFor(identity('alice'));
    expect(lookups).toHaveLength(2);
    external.forget({ issuer: IDP, subject: 'alice' });
    await external.agentIdFor(identity('alice'));
    expect(lookups).toHaveLength(3);
  });

  it('uses the agent of whoever provisioned the identity first, once that agent is written', async () => {
    // The other instance has claimed the identity and writes its agent 30 ms later (on Redis the claim comes
    // first): the lookup before provisioning, and the ones right after losing, find no agent yet.
    let written = false;
    setTimeout(() => (written = true), 30);
    const lookups: boolean[] = [];
    const external = new ExternalAgents({
      agents: {
        findByExternalSubject: async () => (lookups.push(written), written ? 'agt_winner' : null),
      },
      issuers: [{ issuer: IDP, audience: AUDIENCE, provision: TEMPLATE }],
      provision: async (subject) => {
        throw new SubjectTakenError(`${subject.subject} is taken`, 'agt_winner');
      },
    });
    expect(await external.agentIdFor(identity('dave'))).toBe('agt_winner');
    // Answered only once the store named the agent: a call using it finds it (else 401 unknown-agent).
    expect(lookups.at(-1)).toBe(true);
    expect(lookups.length).toBeGreaterThan(2);
  });

  it('refuses as a store failure, not a bad token, when the winner of the race never writes its agent', async () => {
    const external = new ExternalAgents({
      agents: { findByExternalSubject: async () => null },
      issuers: [{ issuer: IDP, audience: AUDIENCE, provision: TEMPLATE }],
      provision: async (subject) => {
        throw new SubjectTakenError(`${subject.subject} is taken`, 'agt_gone');
      },
      raceWaitMs: 50,
    });
    await expect(external.agentIdFor(identity('dave'))).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('lets any other provisioning failure through', async () => {
    const external = new ExternalAgents({
      agents: { findByExternalSubject: async () => null },
      issuers: [{ issuer: IDP, audience: AUDIENCE, provision: TEMPLATE }],
      provision: async () => {
        throw new Error('store down');
      },
    });
    await expect(external.agentIdFor(identity('erin'))).rejects.toThrow('store down');
  });
});

/**
 * A stand-in for the verifier: a token is `ext:` and the identity as JSON
 * (issuer, subject, scopes); `issuerOf` knows the configured issuers only.
 */
function stubTokens(issuers: TrustedIssuer[]): ExternalTokens {
  const parse = (token: string) =>
    token.startsWith('ext:')
      ? (JSON.parse(token.slice(4)) as { iss: string; sub: string; scopes?: string[]; iat?: string })
      : undefined;
  const stub = {
    issuers,
    issuerOf: (token: string) => issuers.find((issuer) => issuer.issuer === parse(token)?.iss),
    verify: async (token: string) => {
      const claims = parse(token);
      if (claims === undefined) throw new UnauthorizedError('Invalid token', 'malformed');
      const verified = identity(claims.sub, claims.iss, claims.scopes ?? []);
      return claims.iat === undefined ? verified : { ...verified, issuedAt: new Date(claims.iat) };
    },
  };
  return stub as unknown as ExternalTokens;
}

function externalToken(sub: string, scopes: string[] = [], iss = IDP, iat?: string): string {
  return `ext:${JSON.stringify({ iss, sub, scopes, iat })}`;
}

describe('AgentService with external tokens', () => {
  function setup(issuers: TrustedIssuer[] = [{ issuer: IDP, audience: AUDIENCE }]) {
    const now = new Date('2030-06-15T10:30:00.000Z');
    const store = createMemoryStore();
    const tokens = new TokenService({ signingKey: 's'.repeat(32), clock: () => now });
    const audit: AuditEvent[] = [];
    const service = new AgentService({
      store,
      tokens,
      external: stubTokens(issuers),
      clock: () => now,
      audit: (event) => audit.push(event),
    });
    return { store, service, audit };
  }

  it('authenticates an external token as the agent listing its identity, with the token scopes and no generation', async () => {
    const { service } = setup();
    const agent = await service.create({
      label: 'a',
      dailyTokenBudget: 1,
      scopes: ['orders:read', 'orders:write'],
      externalSubjects: [{ issuer: IDP, subject: 'alice' }],
    });
    const token = externalToken('alice', ['orders:read', 'profile']);
    const claims = await service.verifyToken(token);
    expect(claims).toEqual({
      agentId: agent.agentId,
      scopes: ['orders:read', 'profile'],
      generation: null,
      tokenId: 'jti-alice',
      issuedAt: new Date('2030-06-15T10:00:00Z'),
      expiresAt: new Date('2030-06-15T11:00:00Z'),
      external: { issuer: IDP, subject: 'alice' },
    });
    expect(await service.agentFor(claims)).toEqual(agent);
    expect((await service.authenticate(token)).agent.agentId).toBe(agent.agentId);
  });

  it('refuses an identity no agent lists when the issuer does not provision (401 unknown-agent)', async () => {
    const { service, store } = setup();
    expect(await unauthorized(service.authenticate(externalToken('stranger')))).toBe('unknown-agent');
    expect(await store.agents.list()).toEqual([]);
  });

  it('provisions an agent from the issuer template on first sight, audited as made by the issuer', async () => {
    const { service, store, audit } = setup([{ issuer: IDP, audience: AUDIENCE, provision: TEMPLATE }]);
    const { agent } = await service.authenticate(externalToken('carol', ['orders:read']));
    expect(agent).toEqual({
      agentId: expect.stringMatching(/^agt_/),
      label: 'carol at idp.example.com',
      dailyTokenBudget: 5000,
      isActive: true,
      allowedTools: ['getCustomer', 'createOrder'],
      scopes: ['orders:read', 'orders:write'],
      externalSubjects: [{ issuer: IDP, subject: 'carol' }],
      rateLimit: null,
      deactivatedAt: null,
      createdAt: '2030-06-15T10:30:00.000Z',
      updatedAt: '2030-06-15T10:30:00.000Z',
    });
    expect(audit).toEqual([
      { kind: 'management', outcome: 'agent.created', agentId: agent.agentId, actor: `oauth:${IDP}`, detail: null },
    ]);
    // Seen again: the same agent, nothing new.
    expect((await service.authenticate(externalToken('carol'))).agent.agentId).toBe(agent.agentId);
    expect(await store.agents.list()).toHaveLength(1);
    expect(audit).toHaveLength(1);
  });

  it('cuts a long subject in the provisioned label but keeps it whole in the identity', async () => {
    const { service } = setup([{ issuer: IDP, audience: AUDIENCE, provision: TEMPLATE }]);
    const subject = 'x'.repeat(256);
    const { agent } = await service.authenticate(externalToken(subject));
    expect(agent.label).toHaveLength(100);
    expect(agent.externalSubjects).toEqual([{ issuer: IDP, subject }]);
  });

  it('cuts a long subject by characters, never leaving half of one in the label', async () => {
    const { service } = setup([{ issuer: IDP, audience: AUDIENCE, provision: TEMPLATE }]);
    const { agent } = await service.authenticate(externalToken(`a${'🤖'.repeat(150)}`));
    expect([...agent.label]).toHaveLength(100);
    expect(labelProblem(agent.label)).toBeNull();
  });

  it('provisions one agent for two concurrent first calls of one identity, and both get it', async () => {
    const { service, store, audit } = setup([{ issuer: IDP, audience: AUDIENCE, provision: TEMPLATE }]);
    const create = store.agents.create.bind(store.agents);
    const outcomes: string[] = [];
    store.agents.create = (agent) =>
      create(agent).then(
        () => void outcomes.push('created'),
        (error: unknown) => {
          outcomes.push(error instanceof SubjectTakenError ? 'taken' : 'failed');
          throw error;
        },
      );
    const calls = await Promise.all([
      service.authenticate(externalToken('dave', ['orders:read'])),
      service.authenticate(externalToken('dave', ['orders:write'])),
      service.verifyToken(externalToken('dave')),
    ]);
    const agents = await store.agents.list();
    expect(agents).toHaveLength(1);
    expect(calls.map((call) => ('agent' in call ? call.agent.agentId : call.agentId))).toEqual(
      Array(3).fill(agents[0]!.agentId),
    );
    expect(audit.filter((event) => event.outcome === 'agent.created')).toHaveLength(1);
    // They really raced: each tried to provision, and the store gave the identity to one.
    expect(outcomes.sort()).toEqual(['created', 'taken', 'taken']);
  });

  it('refuses the next call at once when the identity is removed from its agent, though the mapping is cached', async () => {
    const { service } = setup();
    const agent = await service.create({
      label: 'a',
      dailyTokenBudget: 1,
      externalSubjects: [{ issuer: IDP, subject: 'alice' }],
    });
    const token = externalToken('alice');
    await service.authenticate(token);
    await service.update(agent.agentId, { externalSubjects: [] });
    expect(await unauthorized(service.authenticate(token))).toBe('unknown-agent');
    expect(await unauthorized(service.authenticate(token))).toBe('unknown-agent');
  });

  it('follows an identity moved to another agent', async () => {
    const { service } = setup();
    const first = await service.create({
      label: 'a',
      dailyTokenBudget: 1,
      externalSubjects: [{ issuer: IDP, subject: 'alice' }],
    });
    const second = await service.create({ label: 'b', dailyTokenBudget: 1 });
    const token = externalToken('alice');
    await service.authenticate(token);
    await service.update(first.agentId, { externalSubjects: [] });
    await service.update(second.agentId, { externalSubjects: [{ issuer: IDP, subject: 'alice' }] });
    // The cached mapping still names the first agent, which no longer lists the identity: refused, and forgotten.
    expect(await unauthorized(service.authenticate(token))).toBe('unknown-agent');
    expect((await service.authenticate(token)).agent.agentId).toBe(second.agentId);
  });

  it('refuses the tokens of a deactivated or deleted agent at once (inactive, unknown-agent)', async () => {
    const { service } = setup();
    const agent = await service.create({
      label: 'a',
      dailyTokenBudget: 1,
      externalSubjects: [{ issuer: IDP, subject: 'alice' }],
    });
    const token = externalToken('alice');
    const claims = await service.verifyToken(token);
    await service.update(agent.agentId, { isActive: false });
    expect(await unauthorized(service.agentFor(claims))).toBe('inactive');
    expect(await unauthorized(service.authenticate(token))).toBe('inactive');
    await service.delete(agent.agentId);
    expect(await unauthorized(service.authenticate(token))).toBe('unknown-agent');
  });

  it('keeps refusing tokens issued before a deactivation once the agent is reactivated; later ones pass', async () => {
    const { service } = setup();
    const agent = await service.create({
      label: 'a',
      dailyTokenBudget: 1,
      externalSubjects: [{ issuer: IDP, subject: 'alice' }],
    });
    const leaked = externalToken('alice');
    expect((await service.authenticate(leaked)).agent.agentId).toBe(agent.agentId);
    await service.update(agent.agentId, { isActive: false });
    await service.update(agent.agentId, { isActive: true });
    expect(await unauthorized(service.authenticate(leaked))).toBe('revoked');
    // Issued after the deactivation (the service's clock is 10:30): accepted.
    expect((await service.authenticate(externalToken('alice', [], IDP, '2030-06-15T10:31:00Z'))).agent.agentId).toBe(
      agent.agentId,
    );
    // Issued in the deactivation's own instant: still refused.
    expect(await unauthorized(service.authenticate(externalToken('alice', [], IDP, '2030-06-15T10:30:00Z')))).toBe(
      'revoked',
    );
  });

  it('does not provision a new agent for the identity of a deactivated one', async () => {
    const { service, store } = setup([{ issuer: IDP, audience: AUDIENCE, provision: TEMPLATE }]);
    const { agent } = await service.authenticate(externalToken('carol'));
    await service.update(agent.agentId, { isActive: false });
    expect(await unauthorized(service.authenticate(externalToken('carol')))).toBe('inactive');
    expect(await store.agents.list()).toHaveLength(1);
  });

  it("keeps the gateway's own tokens working beside external ones, with their revocation", async () => {
    const { service } = setup();
    const agent = await service.create({
      label: 'a',
      dailyTokenBudget: 1,
      scopes: ['orders:read'],
      externalSubjects: [{ issuer: IDP, subject: 'alice' }],
    });
    const own = await service.issueToken(agent.agentId, 30);
    const claims = await service.verifyToken(own.token);
    expect(claims).toMatchObject({ agentId: agent.agentId, scopes: ['orders:read'], generation: expect.any(Number) });
    expect(claims.external).toBeUndefined();
    expect((await service.authenticate(externalToken('alice'))).agent.agentId).toBe(agent.agentId);
    await service.update(agent.agentId, { isActive: false });
    await service.update(agent.agentId, { isActive: true });
    expect(await unauthorized(service.authenticate(own.token))).toBe('revoked');
  });

  it('refuses, naming the field, an external subject of an issuer the gateway does not trust', async () => {
    const { service } = setup();
    const attempt = (subjects: ExternalSubject[]) =>
      service.create({ label: 'a', dailyTokenBudget: 1, externalSubjects: subjects }).then(
        () => null,
        (e: unknown) => e,
      );
    const error = await attempt([{ issuer: 'https://idp.example.com/realms/mian', subject: 'alice' }]);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).fields).toEqual([
      { path: 'externalSubjects.0.issuer', message: expect.stringMatching(/not a trusted issuer/) },
    ]);
    const second = (await attempt([
      { issuer: IDP, subject: 'alice' },
      { issuer: OTHER_IDP, subject: 'bob' },
    ])) as InvalidInputError;
    expect(second.fields.map((field) => field.path)).toEqual(['externalSubjects.1.issuer']);

    const agent = await service.create({ label: 'b', dailyTokenBudget: 1 });
    const update = await service
      .update(agent.agentId, { externalSubjects: [{ issuer: OTHER_IDP, subject: 'bob' }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(update).toBeInstanceOf(InvalidInputError);
    expect((update as InvalidInputError).fields.map((field) => field.path)).toEqual(['externalSubjects.0.issuer']);
    expect((await service.get(agent.agentId)).externalSubjects).toEqual([]);
  });

  it('refuses any external subject when no issuer is trusted', async () => {
    const store = createMemoryStore();
    const service = new AgentService({ store, tokens: new TokenService({ signingKey: 's'.repeat(32) }) });
    await expect(
      service.create({ label: 'a', dailyTokenBudget: 1, externalSubjects: [{ issuer: IDP, subject: 'alice' }] }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect((await service.create({ label: 'a', dailyTokenBudget: 1 })).externalSubjects).toEqual([]);
  });

  it('gives an identity to one agent only (409 naming the owner)', async () => {
    const { service } = setup();
    const owner = await service.create({
      label: 'a',
      dailyTokenBudget: 1,
      externalSubjects: [{ issuer: IDP, subject: 'alice' }],
    });
    const error = await service
      .create({ label: 'b', dailyTokenBudget: 1, externalSubjects: [{ issuer: IDP, subject: 'alice' }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(SubjectTakenError);
    expect(error).toMatchObject({ httpStatus: 409, code: 'conflict', ownerAgentId: owner.agentId });
  });
});

describe('AgentService with a real verifier', () => {
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('accepts a signed external token and a gateway token side by side, and refuses one of an unknown issuer', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    server = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const store = createMemoryStore();
    const external = new ExternalTokens({
      issuers: [{ issuer: origin, jwksUrl: `${origin}/jwks`, audience: AUDIENCE }],
    });
    const service = new AgentService({ store, tokens: new TokenService({ signingKey: 's'.repeat(32) }), external });
    const agent = await service.create({
      label: 'a',
      dailyTokenBudget: 1,
      scopes: ['orders:read'],
      externalSubjects: [{ issuer: origin, subject: 'alice' }],
    });

    const sign = (iss: string) =>
      new SignJWT({ scope: 'orders:read' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(iss)
        .setSubject('alice')
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    const viaIdp = await service.authenticate(await sign(origin));
    expect(viaIdp.agent.agentId).toBe(agent.agentId);
    expect(viaIdp.claims).toMatchObject({
      scopes: ['orders:read'],
      generation: null,
      external: { issuer: origin, subject: 'alice' },
    });

    const own = await service.issueToken(agent.agentId, 1);
    expect(external.issuerOf(own.token)).toBeUndefined();
    expect((await service.authenticate(own.token)).claims.external).toBeUndefined();

    // An issuer it does not trust goes to the gateway's own verifier, which refuses it.
    expect(await unauthorized(service.authenticate(await sign('https://evil.example.com')))).not.toBe('unknown-agent');
  });
});
