import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from './support/raw-http.js';
import { startPair, type Pair } from './support/pair.js';
import { TEST_ADMIN_KEY, type RunningProcess } from './support/processes.js';

const WRONG_KEY = 'not-the-admin-api-key-0123456789abcdef';
const MAX_FAILURES = 3;
const BACKOFF_SECONDS = 2;

/** POST /auth/admin/token from a chosen local address (127.0.0.1 unless told). */
async function postKey(gateway: RunningProcess, apiKey: string, localAddress?: string) {
  const reply = await rawRequest(`${gateway.url}/auth/admin/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ apiKey }),
    ...(localAddress ? { localAddress } : {}),
  });
  return {
    status: reply.status,
    retryAfter: reply.headers['retry-after'],
    contentType: reply.headers['content-type'],
    body: reply.body,
  };
}

const cookieValue = (cookies: string[], name: string) =>
  cookies
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1);
const csrfField = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

/** The dashboard's sign-in form, posted as a browser does. */
async function dashboardSignIn(gateway: RunningProcess, apiKey: string) {
  const form = await rawRequest(`${gateway.url}/dashboard/sign-in`);
  const signInValue = cookieValue(form.headers['set-cookie'] ?? [], 'tollgate_sign_in')!;
  const reply = await rawRequest(`${gateway.url}/dashboard/sign-in`, {
    method: 'POST',
    headers: {
      Cookie: `tollgate_sign_in=${signInValue}`,
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: gateway.url,
      'Sec-Fetch-Site': 'same-origin',
    },
    body: new URLSearchParams({ _csrf: csrfField(form.body)!, apiKey }).toString(),
  });
  return { status: reply.status, retryAfter: reply.headers['retry-after'], body: reply.body };
}

describe('admin sign-in throttled per client address, across instances', () => {
  let pair: Pair<RunningProcess, true>;
  let a: RunningProcess;
  let b: RunningProcess;

  beforeAll(async () => {
    pair = await startPair({
      redis: true,
      instances: 2,
      ready: false,
      gateway: {
        adminApiKey: TEST_ADMIN_KEY,
        env: {
          Gw__Admin__SignInMaxFailures: String(MAX_FAILURES),
          Gw__Admin__SignInBackoffSeconds: String(BACKOFF_SECONDS),
        },
      },
    });
    [a, b] = [pair.gateways[0]!, pair.gateways[1]!];
  });
  afterAll(() => pair?.stop());

  it('refuses an address with 429 + Retry-After after too many wrong keys on either instance, then lets the right key in after the wait', async () => {
    const instances = [a, b];
    // Wrong keys, alternating between the instances: the failures are counted in Redis.
    for (let i = 0; i < MAX_FAILURES; i++) {
      expect((await postKey(instances[i % 2]!, WRONG_KEY)).status).toBe(401);
    }
    const refusedAt = Date.now();
    for (const gateway of instances) {
      const refused = await postKey(gateway, WRONG_KEY);
      expect(refused.status).toBe(429);
      expect(refused.contentType).toMatch(/^application\/problem\+json/);
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(BACKOFF_SECONDS);
      expect(JSON.parse(refused.body)).toMatchObject({ status: 429, title: 'Too many attempts' });
      expect(refused.body).not.toContain(WRONG_KEY);
    }

    // The right key is refused too while the address waits, on both instances and on the dashboard.
    for (const gateway of instances) {
      const refused = await postKey(gateway, TEST_ADMIN_KEY);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBeDefined();
    }
    const page = await dashboardSignIn(b, TEST_ADMIN_KEY);
    expect(page.status).toBe(429);
    expect(Number(page.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(page.body).toContain('Too many failed sign-ins');

    // Another address is not affected.
    expect((await postKey(a, TEST_ADMIN_KEY, '127.0.0.2')).status).toBe(200);

    // Refusals are logged with the address, never the key.
    const logs = a.output() + b.output();
    expect(logs).toContain('too many failed attempts');
    expect(logs).not.toContain(WRONG_KEY);
    expect(logs).not.toContain(TEST_ADMIN_KEY);

    // After the wait the right key works, and clears the address's failures.
    await sleep(Math.max(0, refusedAt + BACKOFF_SECONDS * 1000 + 100 - Date.now()));
    expect((await postKey(b, TEST_ADMIN_KEY)).status).toBe(200);
    for (let i = 0; i < MAX_FAILURES - 1; i++) {
      expect((await postKey(instances[i % 2]!, WRONG_KEY)).status).toBe(401);
    }
    expect((await postKey(a, TEST_ADMIN_KEY)).status).toBe(200);
    expect((await dashboardSignIn(a, TEST_ADMIN_KEY)).status).toBe(303);
  }, 10_000);
});
