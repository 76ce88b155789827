import type { ComponentHealth } from '../embedding/check.js';
import type { GatewayStore } from './ports.js';

/** The `cacheStore` component of the readiness report: one real round trip to the store. */
export async function checkStore(store: GatewayStore): Promise<ComponentHealth> {
  try {
    await store.ping();
    return { status: 'Healthy' };
  } catch (error) {
    return { status: 'Unhealthy', description: error instanceof Error ? error.message : String(error) };
  }
}
