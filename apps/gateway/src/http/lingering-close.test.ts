import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { closeConnectionsInStages, type LingeringCloseOptions } from './lingering-close.js';

/** A server that refuses every request at once, unread, and ends the connection (as a 413 does). */
function refusingServer(options?: LingeringCloseOptions): Promise<{ server: Server; port: number }> {
  const server = createServer((_, res) =>
    res.writeHead(413, { Connection: 'close', 'Content-Length': '9' }).end('too large'),
  );
  if (options) closeConnectionsInStages(server, options);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })),
  );
}

interface Upload {
  received: string;
  /** How the connection ended, as the client saw it. */
  ended: 'fin' | 'reset';
  /** When the server's side ended, from the first byte written. */
  afterMs: number;
}

/** Sends headers announcing `declared` bytes, then `send` bytes as fast as the socket takes them (and keeps going when `forever`), then half-closes unless `end` is false. */
function upload(port: number, declared: number, send: number, { forever = false, end = true } = {}): Promise<Upload> {
  return new Promise((resolve) => {
    // A client that does not end its side stays half-open after the server's FIN (net's default would end it).
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: !end });
    const started = performance.now();
    let received = '';
    let ended: Upload['ended'] = 'fin';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => (ended = 'reset'));
    socket.on('close', () => resolve({ received, ended, afterMs: performance.now() - started }));
    socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (!socket.destroyed && (forever || sent < send)) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (!socket.destroyed && end) socket.end();
    };
    pump();
  });
}

describe('closeConnectionsInStages', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('lets a client still uploading read the whole early answer, and ends with a FIN, every time', async () => {
    const started = await refusingServer({ lingerMs: 2_000, maxLingerBytes: 64 * 1024 * 1024 });
    server = started.server;
    for (let i = 0; i < 20; i += 1) {
      const { received, ended } = await upload(started.port, 8 * 1024 * 1024, 8 * 1024 * 1024);
      expect({ i, head: received.split('\r\n')[0], body: received.endsWith('too large'), ended }).toEqual({
        i,
        head: 'HTTP/1.1 413 Payload Too Large',
        body: true,
        ended: 'fin',
      });
    }
  });

  it('cuts a client that keeps sending once it has read maxLingerBytes', async () => {
    const started = await refusingServer({ lingerMs: 60_000, maxLingerBytes: 1024 * 1024 });
    server = started.server;
    const { received, afterMs } = await upload(started.port, 1024 ** 3, 0, { forever: true });
    expect(received).toMatch(/^HTTP\/1.1 413/);
    expect(afterMs).toBeLessThan(10_000);
  });

  it('cuts a client that goes quiet without closing once lingerMs passes', async () => {
    const started = await refusingServer({ lingerMs: 300, maxLingerBytes: 1024 * 1024 });
    server = started.server;
    void upload(started.port, 1024 * 1024, 64 * 1024, { end: false });
    const open = () =>
      new Promise<number>((resolve, reject) =>
        started.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
    await sleep(100);
    expect(await open()).toBe(1);
    await sleep(600);
    expect(await open()).toBe(0);
  });
});
