import { createClient, type RedisClientType } from 'redis';
import { describe, expect, it } from 'vitest';
import { isRedisServerAvailable, startRedisServer, type RedisServer } from './redis-server.js';

const available = isRedisServerAvailable();

async function withClient<T>(server: RedisServer, use: (client: RedisClientType) => Promise<T>): Promise<T> {
  const client: RedisClientType = createClient({ url: server.url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
}

describe.runIf(available)('startRedisServer', () => {
  it('loses the data on restart by default', async () => {
    const server = await startRedisServer();
    try {
      await withClient(server, (client) => client.set('k', 'v'));
      await server.restart();
      expect(await withClient(server, (client) => client.get('k'))).toBeNull();
    } finally {
      await server.stop();
    }
  });

  it('keeps every acknowledged write across stop and restart when persistent', async () => {
    const server = await startRedisServer({ persistent: true });
    try {
      await withClient(server, (client) => client.set('k', 'v'));
      await server.restart();
      expect(await withClient(server, (client) => client.get('k'))).toBe('v');
      await server.stop();
      await server.restart();
      expect(await withClient(server, (client) => client.get('k'))).toBe('v');
    } finally {
      await server.stop();
    }
  });
});
