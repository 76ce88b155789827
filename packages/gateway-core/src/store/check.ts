import type { ComponentHealth } from '../embedding/check.js';
import type { GatewayStore } from './ports.js';
import { PartialStoreOutage } from './partial-outage.js';

/**
 * The `cacheStore` component of the readiness report: one real round trip to
 * the store. Degraded when only part of it answers (a master of a cluster):
 * the agents stored elsewhere are served.
 */
export async function checkStore(store: GatewayStore): Promise<ComponentHealth> {
  try {
    await store.ping();
    return { status: 'Healthy' };
  } catch (error) {
    const description = error instanceof Error ? error.message : String(error);
    return { status: error instanceof PartialStoreOutage ? 'Degraded' : 'Unhealthy', description };
  }
}
