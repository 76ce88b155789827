import { getConnInfo } from '@hono/node-server/conninfo';
import type { SignInThrottle } from '@tollgate/gateway-core';
import { TooManyAttemptsError } from '@tollgate/gateway-core/errors';
import { sameSecret } from '@tollgate/gateway-core/internal';
import type { Context } from 'hono';

/** What the admin sign-in tells the log: refusals and wrong keys, by address; never the key. */
export interface AdminSignInLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * The admin-key check both sign-ins share (`POST /auth/admin/token` and the
 * dashboard's form): throttled per client address by `SignInThrottle`, so
 * every instance on the store counts the same failures.
 */
export class AdminSignIn {
  constructor(
    private readonly throttle: SignInThrottle,
    private readonly log?: AdminSignInLog,
  ) {}

  /**
   * True when `presented` is the configured key (and the address's failures
   * are cleared); false when it is not (and the failure is counted). Throws
   * `TooManyAttemptsError` while the address must wait, without comparing.
   */
  async verify(c: Context, presented: unknown, configured: string, entryPoint: 'api' | 'dashboard'): Promise<boolean> {
    const address = clientAddress(c);
    try {
      await this.throttle.check(address);
    } catch (error) {
      if (error instanceof TooManyAttemptsError) {
        this.log?.warn(
          { address, entryPoint, retryAfterSeconds: error.data.retryAfterSeconds },
          'admin sign-in refused: too many failed attempts from this address',
        );
      }
      throw error;
    }
    if (typeof presented === 'string' && sameSecret(presented, configured)) {
      await this.throttle.succeeded(address);
      return true;
    }
    const waitMs = await this.throttle.failed(address);
    this.log?.warn(
      { address, entryPoint, ...(waitMs > 0 ? { retryAfterSeconds: Math.ceil(waitMs / 1000) } : {}) },
      'admin sign-in with a wrong API key',
    );
    return false;
  }
}

/**
 * The TCP peer's address. Forwarding headers (X-Forwarded-For, Forwarded)
 * are not trusted: behind a proxy every client counts as the proxy.
 */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
