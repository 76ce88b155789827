import { DEFAULT_RESERVATION_TTL_MS, type StoreOptions } from '../options.js';
import type { GatewayStore } from '../ports.js';
import { MemoryAgentStore } from './agents.js';
import { MemoryBudgetLedger } from './budget.js';
import { MemoryRevocationStore } from './revocation.js';
import { MemorySessionStore } from './sessions.js';

/**
 * The embedded store: everything in this process's memory. Right for one
 * instance and for development; state is lost on restart and not shared.
 */
export function createMemoryStore(options: StoreOptions = {}): GatewayStore {
  return {
    kind: 'memory',
    agents: new MemoryAgentStore(),
    revocation: new MemoryRevocationStore(),
    budget: new MemoryBudgetLedger(options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS),
    sessions: new MemorySessionStore(options.clock ?? Date.now),
    async ping() {},
    async close() {},
  };
}
