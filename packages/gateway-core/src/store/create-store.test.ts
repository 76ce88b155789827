import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { createStore, parseStoreUrl } from './create-store.js';

describe('createStore', () => {
  it('gives the embedded store without an address', async () => {
    expect((await createStore(undefined)).kind).toBe('memory');
    expect((await createStore('  ')).kind).toBe('memory');
  });

  it.each([
    ['not a url', /not a valid address/],
    ['http://localhost:6379', /unsupported scheme "http:"/],
    ['memcached://localhost', /unsupported scheme/],
    ['redis://', /names no host/],
    ['redis+cluster://a:1,,b:2', /empty seed node/],
    ['rediss+cluster://a:1/5', /database 0 only/],
  ])('refuses %s with a ConfigError naming the option', async (address, message) => {
    const attempt = createStore(address);
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(message);
    await expect(attempt).rejects.toThrow(/^store\.url: /);
  });

  it('never repeats the address, which may hold a password', async () => {
    await expect(createStore('http://user:s3cret@localhost')).rejects.not.toThrow(/s3cret/);
    await expect(createStore('redis+cluster://user:s3cret@a:1/x')).rejects.not.toThrow(/s3cret/);
  });

  it('takes a cluster of seed nodes as it is', () => {
    expect(parseStoreUrl(' redis+cluster://10.0.0.1:7000,10.0.0.2:7000 ')).toBe(
      'redis+cluster://10.0.0.1:7000,10.0.0.2:7000',
    );
  });

  it('refuses a key prefix with a hash tag on a cluster: every key would share one slot', async () => {
    await expect(
      createStore('redis+cluster://127.0.0.1:1', { keyPrefix: '{gw}:', connectTimeoutMs: 50 }),
    ).rejects.toThrow(/store\.keyPrefix: must not contain/);
  });
});
