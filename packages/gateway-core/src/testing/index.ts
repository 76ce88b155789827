/** Test support for packages and apps built on gateway-core: `@tollgate/gateway-core/testing`. */
export { startRedisServer, isRedisServerAvailable, type RedisServer, type RedisServerOptions } from './redis-server.js';
