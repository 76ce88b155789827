import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { createStore } from './create-store.js';

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
  ])('refuses %s with a ConfigError naming the option', async (address, message) => {
    const attempt = createStore(address);
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(message);
    await expect(attempt).rejects.toThrow(/^store\.url: /);
  });

  it('never repeats the address, which may hold a password', async () => {
    await expect(createStore('http://user:s3cret@localhost')).rejects.not.toThrow(/s3cret/);
  });
});
