// CPU per forwarded call of the gateway assertion (issue 18 item 4): the
// signer as the forwarder uses it, against jose's SignJWT with the same key
// (a CryptoKey imported once), for both algorithms. Build first:
//   pnpm --filter @tollgate/gateway-core build && node packages/gateway-core/bench/assertion-sign.mjs
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { GatewayAssertionSigner } from '../dist/index.js';

const CALLS = 20_000;
const WARM_UP = 2_000;
const subject = () => ({
  audience: 'http://127.0.0.1:8081',
  agentId: 'agt_0123456789',
  tool: 'get_order',
  scopes: ['orders:read', 'customers:read'],
  callId: randomUUID(),
});

/** CPU and wall time per call, after a warm-up, over CALLS calls in sequence. */
async function measure(label, sign) {
  for (let i = 0; i < WARM_UP; i++) await sign();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await sign();
  const wallUs = ((performance.now() - started) * 1000) / CALLS;
  const { user, system } = process.cpuUsage(cpu);
  console.log(
    `${label.padEnd(34)} ${((user + system) / CALLS).toFixed(1).padStart(6)} µs CPU/call  ${wallUs.toFixed(1).padStart(6)} µs wall/call`,
  );
}

for (const algorithm of ['EdDSA', 'ES256']) {
  const signer = new GatewayAssertionSigner({ signingKey: 'bench-signing-key-that-is-at-least-32-bytes', algorithm });
  await measure(`GatewayAssertionSigner ${algorithm}`, () => signer.sign(subject()));
  // jose with a key of the same algorithm, imported into WebCrypto once (no per-call import either).
  const kid = JSON.parse(Buffer.from(signer.sign(subject()).split('.')[0], 'base64url').toString()).kid;
  const pair =
    algorithm === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cryptoKey = pair.privateKey.toCryptoKey(
    algorithm === 'EdDSA' ? { name: 'Ed25519' } : { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['sign'],
  );
  await measure(`jose SignJWT ${algorithm} (for comparison)`, () => {
    const { audience, agentId, tool, scopes, callId } = subject();
    return new SignJWT({ tool, scope: scopes.join(' '), call_id: callId })
      .setProtectedHeader({ alg: algorithm, kid, typ: 'JWT' })
      .setIssuer('tollgate')
      .setAudience(audience)
      .setSubject(agentId)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(cryptoKey);
  });
}
