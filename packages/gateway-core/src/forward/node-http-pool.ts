import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import type { TimedStop } from '../abort/timed-stop.js';

export interface PoolRequest {
  method: string;
  /** Path and query, relative to the origin. */
  path: string;
  headers: Record<string, string>;
  body: string | null;
  /**
   * What ends the call from outside (a TimedStop): already stopped,
   * the call is refused; stopped later, the request is destroyed.
   */
  stop: Pick<TimedStop, 'stopped' | 'reason' | 'onStop'>;
}

export interface PoolResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** Must be read to the end or destroyed. */
  body: Readable;
}

export interface NodeHttpPoolOptions {
  /** Most sockets open to the origin, one call each; more calls wait for one. */
  connections: number;
  /** An idle socket is closed after this long (sooner when the server's Keep-Alive says so). */
  keepAliveTimeoutMs: number;
}

/**
 * Keep-alive connections to one origin over node:http's Agent, the way a
 * bare Node proxy reaches its upstream: the request is written with the
 * socket's first write and the answer parsed by Node's own HTTP parser,
 * which costs a call less CPU than undici's dispatcher and its WebAssembly
 * parser (issue 19). The forwarder's guarantees stay its own: the deadline
 * and the caller's cancellation arrive as `stop` (stopping destroys the
 * request and its socket, with an AbortError as node:http's `signal` would),
 * and it reads the body within its size limit.
 */
export class NodeHttpPool {
  readonly #origin: URL;
  /** The origin's host name as the client wants it: an IPv6 address without the brackets a URL keeps ([::1]). */
  readonly #hostname: string;
  readonly #agent: HttpAgent;
  readonly #request: typeof httpRequest;
  #inFlight = 0;
  #closing: { resolve: () => void; done: Promise<void> } | undefined;

  constructor(origin: string, options: NodeHttpPoolOptions) {
    this.#origin = new URL(origin);
    this.#hostname = this.#origin.hostname.replace(/^\[(.*)\]$/, '$1');
    const https = this.#origin.protocol === 'https:';
    const agentOptions = {
      keepAlive: true,
      maxSockets: options.connections,
      timeout: options.keepAliveTimeoutMs,
      scheduling: 'lifo' as const,
    };
    this.#agent = https ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.#request = https ? (httpsRequest as typeof httpRequest) : httpRequest;
  }

  /** Resolves with the status line and headers; rejects on a network failure or when `signal` aborts first. */
  request(call: PoolRequest): Promise<PoolResponse> {
    if (this.#closing) return Promise.reject(new Error('the connection pool is closed'));
    if (call.stop.stopped) return Promise.reject(abortError(call.stop.reason));
    this.#inFlight++;
    return new Promise<PoolResponse>((resolve, reject) => {
      const options: RequestOptions = {
        protocol: this.#origin.protocol,
        hostname: this.#hostname,
        port: this.#origin.port,
        method: call.method,
        path: call.path,
        headers: call.headers,
        agent: this.#agent,
      };
      const req = this.#request(options, (res) =>
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res }),
      );
      // A request already over is marked destroyed by node:http, so a late stop does nothing.
      call.stop.onStop((reason) => req.destroy(abortError(reason)));
      // Kept for the request's whole life: an error after the answer began reaches the body's reader.
      req.on('error', reject);
      req.once('close', () => this.#settled());
      req.end(call.body ?? undefined);
    });
  }

  /** Closes idle sockets at once and the others as their calls end; resolves when none is left. */
  close(): Promise<void> {
    if (!this.#closing) {
      let resolve!: () => void;
      const done = new Promise<void>((settle) => (resolve = settle));
      this.#closing = { resolve, done };
      if (this.#inFlight === 0) this.#finish();
    }
    return this.#closing.done;
  }

  #settled(): void {
    this.#inFlight--;
    if (this.#closing && this.#inFlight === 0) this.#finish();
  }

  #finish(): void {
    this.#agent.destroy();
    this.#closing?.resolve();
  }
}

/** The error node:http's own `signal` option destroys a request with: an AbortError whose cause is the reason. */
function abortError(reason: unknown): Error {
  const error = new Error('The operation was aborted', { cause: reason });
  error.name = 'AbortError';
  (error as Error & { code: string }).code = 'ABORT_ERR';
  return error;
}
