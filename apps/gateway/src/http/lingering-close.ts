import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface LingeringCloseOptions {
  /** How long a closing connection keeps reading what the client still sends. */
  lingerMs: number;
  /** How much of it is read (and discarded) before the connection is cut anyway. */
  maxLingerBytes: number;
}

export const DEFAULT_LINGERING_CLOSE: LingeringCloseOptions = { lingerMs: 2_000, maxLingerBytes: 4 * 1024 * 1024 };

/**
 * Closes connections in stages, as RFC 9112 section 9.6 asks: after an
 * answer that ends the connection (`Connection: close`, e.g. a 413 or a 401
 * sent before the body was read), Node half-closes and then destroys the
 * socket at once. A client still uploading then sends into a closed socket,
 * the kernel answers with a reset, and the reset can erase the answer from
 * the client's buffers before it reads it: the client sees ECONNRESET
 * instead of the 413.
 *
 * Here the write side is closed (FIN after the answer), and what the client
 * still sends is read and dropped until it closes its side, or `lingerMs`
 * or `maxLingerBytes` run out; only then is the socket destroyed. Bounded
 * both ways, so a client cannot hold a closing connection open.
 */
export function closeConnectionsInStages(
  server: Server,
  options: LingeringCloseOptions = DEFAULT_LINGERING_CLOSE,
): void {
  server.on('connection', (socket: Socket) => {
    // Node's HTTP server ends a connection with destroySoon(); no public option changes how.
    socket.destroySoon = () => linger(socket, options);
  });
}

function linger(socket: Socket, { lingerMs, maxLingerBytes }: LingeringCloseOptions): void {
  if (socket.destroyed) return;
  let read = 0;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // The client closed its side: nothing more can arrive, so nothing can be reset.
  socket.once('end', cut);
  socket.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > maxLingerBytes) cut();
  });
  if (socket.writable) socket.end();
  socket.resume();
}
