/**
 * Test support for packages and apps built on gateway-core: `@tollgate/gateway-core/testing`.
 *
 * The folder also holds the package's own test support, imported by relative
 * path and not exported: the GatewayStore contract suite (`store-contract.ts`,
 * which imports vitest, so exporting it would bundle vitest into this entry)
 * and the tool-definition fixtures (`tool-fixtures.ts`).
 */
export { startRedisServer, isRedisServerAvailable, type RedisServer, type RedisServerOptions } from './redis-server.js';
