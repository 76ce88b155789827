// The `store` group of the public API (`import { store } from '@tollgate/gateway-core'`,
// or flat from `@tollgate/gateway-core/store`): the store ports in domain words, the
// memory and Redis adapters behind `createStore`, and the records they hold.
export type * from '../store/ports.js';
export type { StoreOptions, AuditRetention } from '../store/options.js';
export { createStore, parseStoreUrl } from '../store/create-store.js';
export { createMemoryStore } from '../store/memory/index.js';
export { checkStore } from '../store/check.js';
export { PartialStoreOutage } from '../store/partial-outage.js';
export { MAX_CALLS_PER_MINUTE, MAX_BURST } from '../store/rate-limit-rules.js';
export { TOOL_CALL_OUTCOMES, checkAuditQuery } from '../store/audit-records.js';
export type {
  AuditEntry,
  AuditRecord,
  AuditQuery,
  AuditPage,
  AuditKind,
  AuditOutcome,
  ToolCallAuditOutcome,
  CacheTier,
} from '../store/audit-records.js';
export {
  LATENCY_BOUNDS_MS,
  DEFAULT_USAGE_RETENTION_DAYS,
  type UsageCell,
  type UsageRange,
} from '../store/usage-records.js';
