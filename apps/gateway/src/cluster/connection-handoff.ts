import type { Worker } from 'node:cluster';
import type { Server as HttpServer } from 'node:http';
import { createServer, Socket, type AddressInfo } from 'node:net';

/**
 * The IPC messages: a connection on its way to a worker, the
 * worker saying it took it, the worker saying it takes connections.
 */
const CONNECTION = 'tollgate:connection';
const TAKEN = 'tollgate:connection-taken';
const ACCEPTING = 'tollgate:accepting';

type HandoffMessage = { tollgate?: unknown; id?: unknown } | null;

export interface HandoffOptions {
  port: number;
  host: string;
  /** The worker the next connection goes to; `tried` are those a send to just failed. undefined: none can take it. */
  pick: (tried: ReadonlySet<number>) => Worker | undefined;
}

export interface WorkerHandoff {
  /** Stops accepting; connections already handed over stay with their workers. */
  close(): void;
  /** A worker's message (its word that it took a connection). */
  heard(worker: Worker, message: unknown): void;
  /** A worker exited: the connections it had not yet said it took are reset. */
  workerGone(workerId: number): void;
}

/**
 * The primary accepts every connection and hands it to a worker.
 *
 * Why not Node's own round-robin: it keeps each connection open in the
 * primary until the worker it was sent to says it took it, and a worker
 * killed in between never says, so that connection stays open, unanswered,
 * for as long as the primary runs (Node's own socket passing does the same
 * with the socket it waits to have acknowledged). Here the primary keeps its
 * copy of each socket until the worker says it took it, then closes it (the
 * worker's copy serves on); when a worker exits, every socket it had not yet
 * taken is reset, so its client learns at once. A send that fails (the
 * worker already gone) goes to the next worker; with none left the
 * connection is reset at once.
 */
export function acceptForWorkers(options: HandoffOptions, onListening: (info: AddressInfo) => void): WorkerHandoff {
  const inFlight = new Map<number, { workerId: number; socket: Socket }>();
  let nextId = 0;
  const handOff = (socket: Socket, tried: Set<number>): void => {
    const worker = options.pick(tried);
    if (worker === undefined) {
      socket.resetAndDestroy();
      return;
    }
    const id = nextId++;
    inFlight.set(id, { workerId: worker.id, socket });
    // keepOpen: the primary's copy stays ours to close or reset, whatever becomes of the worker.
    worker.send({ tollgate: CONNECTION, id }, socket, { keepOpen: true }, (error) => {
      if (error === null || !inFlight.delete(id)) return;
      tried.add(worker.id);
      handOff(socket, tried);
    });
  };
  // Paused: nothing is read in the primary; the worker reads the request from the start.
  const server = createServer({ pauseOnConnect: true }, (socket) => handOff(socket, new Set()));
  server.listen(options.port, options.host, () => onListening(server.address() as AddressInfo));
  return {
    close: () => server.close(),
    heard: (worker, message) => {
      const { tollgate, id } = (message as HandoffMessage) ?? {};
      if (tollgate !== TAKEN || typeof id !== 'number') return;
      const handed = inFlight.get(id);
      if (handed?.workerId !== worker.id) return;
      inFlight.delete(id);
      // Closes this process's descriptor only: the connection lives on in the worker.
      handed.socket.destroy();
    },
    workerGone: (workerId) => {
      for (const [id, handed] of inFlight) {
        if (handed.workerId !== workerId) continue;
        inFlight.delete(id);
        handed.socket.resetAndDestroy();
      }
    },
  };
}

/** A worker's message saying it takes connections from now on. */
export function isAccepting(message: unknown): boolean {
  return (message as { tollgate?: unknown } | null)?.tollgate === ACCEPTING;
}

/** The parts of net.Server's own bookkeeping that a connection it did not accept must join. */
interface ConnectionCount {
  _connections: number;
}

/**
 * Worker side: serves the connections the primary hands over as if `server`
 * had accepted them itself. Node's server counts the connections it accepts
 * (`_connections`, which `close()` waits on to drain, and `maxConnections`
 * refuses past) and starts its header and idle timeouts on 'listening';
 * a handed connection gets the same: counted, refused past the cap, timed.
 */
export function serveHandedConnections(server: HttpServer): void {
  server.emit('listening');
  process.on('message', (message: unknown, handle: unknown) => {
    const { tollgate, id } = (message as HandoffMessage) ?? {};
    if (tollgate !== CONNECTION || !(handle instanceof Socket)) return;
    adopt(server, handle);
    process.send?.({ tollgate: TAKEN, id });
  });
  process.send?.({ tollgate: ACCEPTING });
}

function adopt(server: HttpServer, socket: Socket): void {
  const counted = server as unknown as ConnectionCount;
  if (counted._connections >= server.maxConnections) {
    socket.destroy();
    return;
  }
  counted._connections++;
  // How a Socket tells the server it was accepted by that it closed (net's onconnection sets the same).
  Object.assign(socket, { _server: server, server });
  server.emit('connection', socket);
  socket.resume();
}
