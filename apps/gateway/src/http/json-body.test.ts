import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { jsonBodyLimit } from './json-body.js';

describe('jsonBodyLimit', () => {
  const app = new Hono().post('/', jsonBodyLimit(16), async (c) => c.text(await c.req.text()));

  it('answers a body over the limit with a 413 problem that closes the connection', async () => {
    for (const declared of [true, false]) {
      const body = declared ? 'x'.repeat(17) : new Blob(['x'.repeat(17)]).stream();
      const response = await app.request('/', {
        method: 'POST',
        body,
        ...(declared ? {} : { duplex: 'half' }),
      } as RequestInit);
      expect(response.status).toBe(413);
      expect(response.headers.get('connection')).toBe('close');
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({ status: 413, detail: 'Request body is larger than 16 bytes' });
    }
  });

  it('keeps the connection for a body within the limit', async () => {
    const response = await app.request('/', { method: 'POST', body: 'x'.repeat(16) });
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBeNull();
  });
});
