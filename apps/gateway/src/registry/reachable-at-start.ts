import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SHORTHAND_DOWNSTREAM, type DownstreamConfig } from '../config/downstreams-section.js';

/**
 * How long a development gateway waits for a downstream to accept a
 * connection at start: long enough for an API started beside it (as
 * `pnpm dev` does) to open its port, short enough that a wrong address is
 * said within seconds.
 */
export const START_WAIT_MS = 3_000;
const ATTEMPT_TIMEOUT_MS = 1_000;
const ATTEMPT_GAP_MS = 250;

/**
 * The downstreams nothing answers at (no TCP connection to their base URL's
 * host and port within `waitMs`), as one line each naming the key to change.
 * Only whether something listens is checked: what it answers is the tool
 * loader's business, which retries and says why in readiness.
 */
export async function unreachableAtStart(
  downstreams: readonly DownstreamConfig[],
  waitMs = START_WAIT_MS,
): Promise<string[]> {
  const lines = await Promise.all(
    downstreams.map(async (downstream) => {
      const reason = await unreachableReason(downstream.baseUrl, waitMs);
      if (reason === null) return null;
      const key = baseUrlKey(downstream.name);
      return `${key}: nothing answers at ${shown(downstream.baseUrl)} (${reason}): start that API, or correct ${key}`;
    }),
  );
  return lines.filter((line): line is string => line !== null);
}

/** The key that sets a downstream's base URL: the single-key form's, or its named one. */
export function baseUrlKey(name: string): string {
  return name === SHORTHAND_DOWNSTREAM ? 'Gw:ToolRegistry:DownstreamBaseUrl' : `Gw:Downstreams:${name}:BaseUrl`;
}

/** Null once a connection opens; else why the last try failed, after trying until `waitMs` has passed. */
async function unreachableReason(baseUrl: string, waitMs: number): Promise<string | null> {
  const url = new URL(baseUrl);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  // An IPv6 literal comes bracketed in a URL; connect() wants it bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const deadline = performance.now() + waitMs;
  for (;;) {
    const reason = await tryConnect(host, port);
    if (reason === null || performance.now() + ATTEMPT_GAP_MS >= deadline) return reason;
    await sleep(ATTEMPT_GAP_MS);
  }
}

function tryConnect(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: ATTEMPT_TIMEOUT_MS });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(`no connection within ${ATTEMPT_TIMEOUT_MS / 1000} s`);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(describe(error)));
  });
}

function describe(error: NodeJS.ErrnoException): string {
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'host not found';
  return error.code ?? error.message;
}

/** The URL without user and password: a base URL may carry credentials. */
function shown(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.username = '';
  url.password = '';
  return url.toString();
}
