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
