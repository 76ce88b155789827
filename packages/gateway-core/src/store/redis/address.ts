/**
 * The Redis address in `ConnectionStrings:Store`: one server
 * (`redis://` or `rediss://`, as node-redis reads it) or a Redis Cluster
 * (`redis+cluster://` or `rediss+cluster://`, then one or more seed nodes
 * separated by commas: `redis+cluster://user:pass@10.0.0.1:6379,10.0.0.2:6379`).
 * The client learns the rest of the cluster from any seed it reaches; the
 * credentials and TLS apply to every node. Messages never repeat the
 * address: it may carry a password.
 */

export type RedisAddress =
  | { readonly kind: 'single'; readonly url: string }
  | {
      readonly kind: 'cluster';
      readonly seeds: ReadonlyArray<{ readonly host: string; readonly port: number }>;
      readonly tls: boolean;
      readonly username?: string;
      readonly password?: string;
    };

const CLUSTER_SCHEMES: Record<string, boolean> = { 'redis+cluster:': false, 'rediss+cluster:': true };

export const REDIS_SCHEMES = 'redis://, rediss://, redis+cluster:// or rediss+cluster://';

/** Whether the address names a cluster by its scheme. */
export function isClusterAddress(address: string): boolean {
  return schemeOf(address) in CLUSTER_SCHEMES;
}

/** Throws an Error whose message says what is wrong (never the address). */
export function parseRedisAddress(address: string): RedisAddress {
  const scheme = schemeOf(address);
  const tls = CLUSTER_SCHEMES[scheme];
  if (tls === undefined) return { kind: 'single', url: address };
  const rest = address.slice(scheme.length + 2);
  if (address.slice(scheme.length, scheme.length + 2) !== '//')
    throw new Error('a cluster address reads redis+cluster://host:port,host:port');
  const authorityEnd = firstIndexOf(rest, ['/', '?', '#']);
  const authority = rest.slice(0, authorityEnd);
  checkPath(rest.slice(authorityEnd));
  const at = authority.lastIndexOf('@');
  const userInfo = at === -1 ? '' : authority.slice(0, at + 1);
  const seeds = authority
    .slice(at + 1)
    .split(',')
    .map((seed) => parseSeed(userInfo, seed));
  const credentials = new URL(`redis://${userInfo}placeholder`);
  return {
    kind: 'cluster',
    seeds,
    tls,
    ...(credentials.username ? { username: decodeURIComponent(credentials.username) } : {}),
    ...(credentials.password ? { password: decodeURIComponent(credentials.password) } : {}),
  };
}

function schemeOf(address: string): string {
  const colon = address.indexOf(':');
  return colon === -1 ? '' : address.slice(0, colon + 1).toLowerCase();
}

function firstIndexOf(text: string, characters: string[]): number {
  const found = characters.map((c) => text.indexOf(c)).filter((i) => i !== -1);
  return found.length === 0 ? text.length : Math.min(...found);
}

function checkPath(path: string): void {
  if (path === '' || path === '/' || path === '/0') return;
  if (/^\/\d+$/.test(path)) throw new Error('a Redis Cluster has database 0 only');
  throw new Error('a cluster address takes no path, query or fragment');
}

function parseSeed(userInfo: string, seed: string): { host: string; port: number } {
  if (seed.trim() === '') throw new Error('a cluster address lists an empty seed node');
  let url: URL;
  try {
    url = new URL(`redis://${userInfo}${seed}`);
  } catch {
    throw new Error('a seed node is not a valid host:port');
  }
  if (url.hostname === '' || url.pathname !== '') throw new Error('a seed node is not a valid host:port');
  // IPv6 seeds come bracketed ([::1]:7000); the socket wants the bare address.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { host, port: url.port === '' ? 6379 : Number(url.port) };
}
