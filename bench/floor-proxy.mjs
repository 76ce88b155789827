// The bare proxy (bare-proxy.mjs) plus only the work issue 19's target
// itself puts on every call of the gateway, done the cheapest way we know
// and nothing else: what any gateway meeting the target must at least pay.
//
//  - one store round trip before the call (one script: the agent's record
//    and the budget reservation, as the gateway's reads return them) and one
//    after the reply (one script: settle and append the audit record);
//  - the signed gateway assertion for the downstream (ES256, the gateway's
//    own signer);
//  - the downstream's answer parsed and serialized again (the privacy filter
//    and the token cap need it as a value).
// With FLOOR_MODE=hit it is the floor of a cache hit instead: the cached
// answer read in the first round trip, then the second; nothing else.
//
// No auth, session, allowlist, argument validation, privacy patterns, token
// counting, rate limit, cap, metrics or call record. If this process alone
// costs near 2× the bare proxy, the gateway's ≤ 2× target leaves nothing for
// those steps (docs/decisions/issue-19-floor-proxy.md).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { GatewayAssertionSigner } from '@tollgate/gateway-core';
import { downstreamClient, serveMcp } from './lib/hop.mjs';

// The Redis client the gateway uses, the same copy (gateway-core's dependency, not the workspace root's).
const { createClient } = createRequire(fileURLToPath(import.meta.resolve('@tollgate/gateway-core')))('redis');

// FLOOR_MODE=hit serves the call as a cache hit: the cached answer comes with the
// store's first round trip; no downstream request, no signature, no parsing.
const HIT = process.env.FLOOR_MODE === 'hit';
// FLOOR_STEPS names the steps done (all three by default), to price each one alone;
// FLOOR_ALG=EdDSA signs with the gateway's other algorithm (ES256 by default).
const steps = new Set((process.env.FLOOR_STEPS ?? 'store,sign,parse').split(',').filter(Boolean));
const downstream = downstreamClient(process.env.DOWNSTREAM_URL);
const signer = new GatewayAssertionSigner({
  signingKey: process.env.SIGNING_KEY ?? 'floor-proxy-signing-key-of-32-bytes-or-more',
  ...(process.env.FLOOR_ALG && { algorithm: process.env.FLOOR_ALG }),
});
const redis = createClient({ url: process.env.REDIS_URL });
await redis.connect();

const AGENT = 'agt_floor';
const agentKey = `floor:agent:{${AGENT}}`;
const budgetKey = `floor:budget:{${AGENT}}`;
const auditKey = `floor:audit:{${AGENT}}`;
// The agent's record as a hash (the gateway keeps about this much), a budget with one reservation per call.
await redis.hSet(agentKey, {
  id: AGENT,
  name: 'bench agent',
  scopes: '["items:read"]',
  allowedTools: '["*"]',
  active: '1',
  dailyTokenBudget: '1000000000',
  createdAt: new Date().toISOString(),
});
const BEFORE = `local agent = redis.call('HGETALL', KEYS[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return { agent, redis.call('HGET', KEYS[2], 'used') or '0', redis.call('GET', KEYS[3]) }`;
const AFTER = `redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'used', ARGV[2])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', '100000', '*', 'r', ARGV[3])
return 1`;
const before = await redis.scriptLoad(BEFORE);
const after = await redis.scriptLoad(AFTER);
// The cached answer a hit serves: the echo downstream's item, stored once (in a cluster it would live on its own slot).
const cacheKey = `floor:cache:{${AGENT}}`;
const CACHED = HIT ? await downstream.fetchText('/items/1').then((answer) => answer.text) : undefined;
if (HIT) await redis.set(cacheKey, CACHED);

/**
 * A tools/call the way the gateway must at least do it: a cache miss
 * (forwarded) or, with FLOOR_MODE=hit, a cache hit. `result` is the answer;
 * `after` the second round trip, which (as in the gateway) follows the reply.
 */
async function toolCall(message) {
  const callId = randomUUID();
  const reservation = `r:${callId}`;
  const read = steps.has('store')
    ? await redis.evalSha(before, { keys: [agentKey, budgetKey, cacheKey], arguments: [reservation, '4000'] })
    : undefined;
  let text;
  if (HIT) {
    text = read?.[2] ?? CACHED;
  } else {
    const assertion = steps.has('sign')
      ? signer.sign({
          audience: downstream.origin,
          agentId: AGENT,
          tool: message.params.name,
          scopes: ['items:read'],
          callId,
        })
      : callId;
    const answer = await downstream.fetchText(`/items/${encodeURIComponent(message.params.arguments.id)}`, {
      'Tollgate-Assertion': assertion,
    });
    if (answer.status !== 200)
      return { result: { isError: true, content: [{ type: 'text', text: `downstream answered ${answer.status}` }] } };
    text = steps.has('parse') ? JSON.stringify(JSON.parse(answer.text)) : answer.text;
  }
  const result = { content: [{ type: 'text', text }] };
  if (!steps.has('store')) return { result };
  const record = JSON.stringify({
    time: new Date().toISOString(),
    kind: 'tool-call',
    agentId: AGENT,
    tool: message.params.name,
    callId,
    outcome: HIT ? 'cache-hit' : 'ok',
    tokens: 330,
  });
  return {
    result,
    after: () => redis.evalSha(after, { keys: [budgetKey, auditKey], arguments: [reservation, '330', record] }),
  };
}

serveMcp('floor-proxy', toolCall, () => redis.quit());
