import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/**
 * True when the TCP peer is on this machine. A request relayed by a proxy
 * (forwarding headers present) is not trusted as local even when the proxy
 * itself connects over loopback.
 */
export function isLoopbackRequest(c: Context): boolean {
  if (FORWARDING_HEADERS.some((name) => c.req.header(name) !== undefined)) return false;
  const address = getConnInfo(c).remote.address ?? '';
  return /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address);
}

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/i;

/** True for a `Host` (or URL host) naming this machine: `localhost`, `127.x.x.x` or `[::1]`, any port. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host);
}
