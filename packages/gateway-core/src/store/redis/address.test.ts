import { describe, expect, it } from 'vitest';
import { isClusterAddress, parseRedisAddress } from './address.js';

describe('parseRedisAddress', () => {
  it('leaves a one-server address to node-redis', () => {
    expect(parseRedisAddress('redis://user:pw@cache:6380/2')).toEqual({
      kind: 'single',
      url: 'redis://user:pw@cache:6380/2',
    });
    expect(isClusterAddress('rediss://cache')).toBe(false);
  });

  it('reads the seed nodes of a cluster, with the default port, IPv6 and the shared credentials', () => {
    expect(parseRedisAddress('redis+cluster://app:p%40ss@10.0.0.1:7000,node-b,[::1]:7002/')).toEqual({
      kind: 'cluster',
      seeds: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'node-b', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      tls: false,
      username: 'app',
      password: 'p@ss',
    });
  });

  it('uses TLS for rediss+cluster, and takes a password alone', () => {
    expect(parseRedisAddress('REDISS+CLUSTER://:secret@a:1')).toEqual({
      kind: 'cluster',
      seeds: [{ host: 'a', port: 1 }],
      tls: true,
      password: 'secret',
    });
    expect(isClusterAddress('rediss+cluster://a:1')).toBe(true);
  });

  it.each([
    ['redis+cluster:a:1', /reads redis\+cluster:\/\/host:port/],
    ['redis+cluster://', /empty seed/],
    ['redis+cluster://a:1,,b:2', /empty seed/],
    ['redis+cluster://a:notaport', /not a valid host:port/],
    ['redis+cluster://a:1/3', /database 0 only/],
    ['redis+cluster://a:1?x=1', /no path, query or fragment/],
  ])('refuses %s, without repeating it', (address, message) => {
    expect(() => parseRedisAddress(address)).toThrow(message);
    expect(() => parseRedisAddress(address.replace('a:', 'secret-host:'))).not.toThrow(/secret-host/);
  });
});
