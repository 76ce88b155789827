/**
 * Test support for packages and apps built on gateway-core: `@tollgate/gateway-core/testing`.
 * Never loaded by the runtime entry.
 *
 * - `startRedisServer`: a real redis-server on a free port, for store tests;
 *   `startRedisCluster`: a real Redis Cluster of a few masters, likewise.
 * - `describeStoreContract`: the contract every GatewayStore adapter passes
 *   (the memory and Redis adapters run it); it declares vitest suites, so
 *   it needs vitest in the consumer's tests (imported, never bundled).
 * - Tool definitions and an agent record for pipeline tests; a plain GET tool
 *   and a big list answer for tests and bench scenarios with their own downstream.
 * - `evaluateSemanticCache` / `replayWorkload`: the semantic tier measured on
 *   a labelled set of pairs (the repository's is
 *   `src/cache/eval/semantic-pairs.json`), for tests and the bench.
 */
export { startRedisServer, isRedisServerAvailable, type RedisServer, type RedisServerOptions } from './redis-server.js';
export {
  startRedisCluster,
  type RedisCluster,
  type RedisClusterNode,
  type RedisClusterOptions,
} from './redis-cluster.js';
export { describeStoreContract, type StoreContractOptions, type StoreFactory } from './store-contract.js';
export {
  getCustomer,
  createOrder,
  deleteCustomer,
  archiveCustomer,
  testAgent,
  plainGetTool,
  bigRecords,
} from './tool-fixtures.js';
export {
  evaluateSemanticCache,
  replayWorkload,
  describeEvaluation,
  type Evaluation,
  type EvaluationSet,
  type LabelledPair,
  type PairOutcome,
  type WorkloadReplay,
} from '../cache/eval/evaluate.js';
