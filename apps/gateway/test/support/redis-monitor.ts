import { connect, type Socket } from 'node:net';

export interface RedisMonitor {
  /** Every command the server received since the monitor started, one per line, as redis-server prints them. */
  commands(): string;
  stop(): void;
}

/**
 * Watches a redis-server with MONITOR: every command any client sends, with
 * its arguments, including the ones Lua scripts run. What a gateway wrote to
 * the store is in there, whether or not it was later deleted or expired, so
 * "never stored" can be asserted on it.
 */
export async function monitorRedis(url: string): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      socket.write('MONITOR\r\n');
      resolve();
    });
  });
  // Commands are only seen once the server has acknowledged MONITOR.
  while (!received.startsWith('+OK')) await new Promise((resolve) => setTimeout(resolve, 10));
  return {
    commands: () => received,
    stop: () => socket.destroy(),
  };
}

/**
 * How many times the server has run each command (`INFO commandstats`,
 * commands run by Lua scripts included), by lower-case name.
 */
export async function commandCounts(url: string): Promise<Record<string, number>> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  socket.setEncoding('utf8');
  let received = '';
  const text = await new Promise<string>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => socket.write('INFO commandstats\r\n'));
    socket.on('data', (chunk: string) => {
      received += chunk;
      // A bulk string: `$<length>\r\n<text>\r\n`.
      const header = /^\$(\d+)\r\n/.exec(received);
      if (header && Buffer.byteLength(received) >= header[0].length + Number(header[1]) + 2)
        resolve(received.slice(header[0].length));
    });
  }).finally(() => socket.destroy());
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}
