import {
  AgentService,
  AuditTrail,
  BudgetAdmission,
  createOpenAiEmbeddingModel,
  createPrivacyFilter,
  WorkerLargeAnswers,
  EmbeddingModelError,
  ExternalTokens,
  GatewayAssertionSigner,
  loadLocalEmbeddingModel,
  ListenStreams,
  McpService,
  WriteConfirmation,
  ToolListWatch,
  SemanticCache,
  SettlementQueue,
  SignInThrottle,
  TokenService,
  ToolSearchIndex,
  ToolSearchMode,
  UsageRecorder,
  type AuditEvent,
  type BreakerState,
  type BreakerStateChange,
  type EmbeddingModel,
} from '@tollgate/gateway-core';
import { createStore, type GatewayStore } from '@tollgate/gateway-core/store';
import { Hono } from 'hono';
import { createHash } from 'node:crypto';
import type { GatewayConfig } from './config/gateway-config.js';
import { createGatewayApp } from './gateway-app.js';
import { AdminSignIn } from './http/admin-sign-in.js';
import type { Logger } from './observability/logger.js';
import { SHORTHAND_DOWNSTREAM } from './config/downstreams-section.js';
import { downstreamForwarders } from './downstream-forwarders.js';
import { acrossWorkers } from './cluster/workers-readiness.js';
import { createReadiness } from './health/readiness.js';
import { judgeDownstreams } from './registry/downstream-health.js';
import { describeCollision, ToolCatalog } from './registry/tool-catalog.js';
import { ToolRefresher } from './registry/tool-refresher.js';
import { GatewayMetrics } from './observability/metrics.js';
import { requestContext } from './observability/request-context.js';
import { currentRequestId } from './observability/request-id.js';
import { metricsRoutes } from './routes/metrics.js';
import { UsageReader } from './usage/usage-reader.js';

export const GATEWAY_VERSION = '0.1.0';

export interface Gateway {
  app: Hono;
  /** The metrics app served without authentication on `Gw:Metrics:Port`. */
  metricsApp: Hono;
  store: GatewayStore;
  /** Loads the tools (retrying until the downstream answers) and starts background refreshes. */
  start(): void;
  /** Stops background work and releases connections; call after the HTTP server has drained. */
  close(): Promise<void>;
}

function loadEmbeddingModel(config: GatewayConfig): Promise<EmbeddingModel> {
  const embedding = config.embedding;
  if (embedding.provider === 'local') return loadLocalEmbeddingModel();
  return Promise.resolve(
    createOpenAiEmbeddingModel({ baseUrl: embedding.baseUrl, model: embedding.model, apiKey: embedding.apiKey }),
  );
}

/**
 * The tool search ranking: lexical, and with `Gw:Catalog:SearchSemanticWeight`
 * above 0 mixed with the embedding model the cache uses (once it has loaded;
 * until then, and for a query it refuses, lexical alone).
 */
function searchIndex(config: GatewayConfig, embeddingModel: Promise<EmbeddingModel>): ToolSearchIndex {
  const semanticWeight = config.catalog.searchSemanticWeight;
  if (semanticWeight === 0) return new ToolSearchIndex();
  const embedding: EmbeddingModel = {
    name: 'gateway embedding model',
    embed: async (texts) => (await embeddingModel).embed(texts),
  };
  return new ToolSearchIndex({ embedding, semanticWeight });
}

/** A key for one purpose, derived from the signing key, so digests of arguments cannot be reversed by guessing. */
function derivedKey(config: GatewayConfig, purpose: string): Buffer {
  return createHash('sha256').update(`tollgate ${purpose}\0`).update(config.jwt.signingKey).digest();
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Wires every part of the gateway from its configuration; the one place that knows them all. */
export async function composeGateway(config: GatewayConfig, log: Logger): Promise<Gateway> {
  const catalog = new ToolCatalog(
    config.downstreams.map(({ name, prefix, openApi }) => ({ name, prefix, readsOpenApi: openApi !== undefined })),
  );
  const metrics = new GatewayMetrics((name) => catalog.registry.get(name) !== undefined);
  const store = await openStore(config, log, metrics);
  const tokens = new TokenService({ signingKey: config.jwt.signingKey });
  const { auditTrail, usageRecorder, audit } = auditing(store, log, metrics);
  const settlements = settlementQueue(store, log, metrics);
  const external = config.oauth ? new ExternalTokens({ issuers: config.oauth.issuers }) : undefined;
  // MCP 2026-07-28 listen streams hear of tool-list changes made on any instance, through the store.
  const listens = new ListenStreams(store.changes, {
    maxPerAgent: config.mcp.maxListenStreamsPerAgent,
    maxTotal: config.mcp.maxListenStreams,
  });
  const publishFailed = (error: unknown) =>
    log.warn({ err: errorText(error) }, 'tool-list change not published; listen streams catch up by tools/list ttlMs');
  const onToolAccessChanged = (agentId: string) => void listens.publish({ agentId }).catch(publishFailed);
  const agents = new AgentService({
    store,
    tokens,
    external,
    settlements,
    audit,
    defaultRateLimit: config.rateLimit.defaultLimit,
    onToolAccessChanged,
  });
  const toolListWatch = new ToolListWatch((change) => listens.publish(change));
  const refresher = toolRefresher(config, store, catalog, log, audit, () =>
    toolListWatch.seen(catalog.registry.list(), publishFailed),
  );
  // Answers above the pool's threshold are decoded, filtered and
  // capped in its worker threads, with the same privacy rules.
  const largeAnswers = new WorkerLargeAnswers({ privacy: config.privacy });
  const assertions = assertionSigner(config);
  const forwarders = downstreamForwarders(config.downstreams, {
    largeAnswerBytes: largeAnswers.thresholdBytes,
    // Each downstream is the audience of the assertions it is sent, so one cannot replay another's.
    forwarderOptions: (downstream) => ({
      assertion: assertions && { signer: assertions, audience: downstream.audience },
    }),
    onStateChange: breakerLog(log, metrics, () => forwarders.worstBreakerState()),
  });
  const embeddingModel = loadEmbeddingModel(config);
  const cache = responseCache(config, store, log);
  // With Workers, /health/ready speaks for every worker (issue 25 finding 10).
  const readiness = acrossWorkers(
    createReadiness({
      store,
      embeddingModel,
      toolsLoaded: () => catalog.loaded,
      // The single-key form lists its downstream only when it is not Healthy: its healthy report stays contract 2.6's.
      downstreams: () =>
        judgeDownstreams(catalog.downstreams(), {
          breakerState: forwarders.breakerState,
          schemaOf: schemaNames(config.downstreams),
          onlyUnhealthy: config.downstreams.length === 1 && config.downstreams[0]?.name === SHORTHAND_DOWNSTREAM,
        }),
    }),
  );
  metrics.countDownstreamTools(() =>
    Object.fromEntries(catalog.downstreams().map((status) => [status.name, status.toolCount])),
  );
  for (const { name } of config.downstreams) metrics.downstreamBreakerState(name, 'closed');
  const onUnexpectedError = (error: unknown) =>
    log.error({ err: error instanceof Error ? error.stack : String(error) }, 'unexpected error');
  // One index for search_tools and the dashboard's search box, following the catalog's reloads.
  const toolSearch = new ToolSearchMode({
    mode: config.catalog.search,
    threshold: config.catalog.searchThreshold,
    registry: () => catalog.registry,
    index: searchIndex(config, embeddingModel),
  });
  const mcp = new McpService({
    agents,
    audit,
    // The same verdict /health/ready gives: ready while some downstream's tools are loaded.
    isReady: () => readiness.ready(),
    onUnexpectedError,
    sessions: store.sessions,
    sessionIdleMs: config.mcp.sessionIdleMinutes * 60_000,
    maxSessionsPerAgent: config.mcp.maxSessionsPerAgent,
    maxConcurrentCallsPerAgent: config.mcp.maxConcurrentCallsPerAgent,
    errorDelivery: config.mcp.errorDelivery,
    streams: store.streams,
    resumeWindowMs: config.mcp.resumeWindowMs,
    // Every instance on the signing key accepts the others' stream ids, and nothing else.
    streamIdKey: derivedKey(config, 'stream ids'),
    maxResumesPerAgent: config.mcp.maxResumesPerAgent,
    maxResumes: config.mcp.maxResumes,
    listens,
    toolSearch,
    // Every instance derives the same key, so a confirmation asked by one is accepted by another, once
    // (store.redeemed).
    writeConfirmation: new WriteConfirmation({
      key: derivedKey(config, 'write confirmation'),
      redeemed: store.redeemed,
    }),
    toolCall: {
      registry: () => catalog.registry,
      budget: store.budget,
      rateLimiter: store.rateLimits,
      settlements,
      // A call whose budget is held by calls in flight waits for them, no longer than its downstream call may last.
      admission: new BudgetAdmission({ ledger: store.budget, settlements, maxWaitMs: forwarders.longestTimeoutMs }),
      forwarder: forwarders.router,
      privacy: createPrivacyFilter(config.privacy),
      largeAnswers,
      cache,
      argsDigestKey: derivedKey(config, 'audit digest'),
    },
    serverInfo: { name: 'tollgate', version: GATEWAY_VERSION },
  });
  const adminSignIn = new AdminSignIn(
    new SignInThrottle({
      attempts: store.signInAttempts,
      maxFailures: config.admin.signInMaxFailures,
      backoffMs: config.admin.signInBackoffMs,
    }),
    log,
  );
  const app = createGatewayApp({
    config,
    agents,
    tokens,
    adminSignIn,
    mcp,
    readiness,
    auditLog: store.audit,
    usage: new UsageReader(store.usage, agents),
    catalog,
    refresher,
    metrics,
    breakerOf: forwarders.breakerState,
    searchTools: async (query, limit) => (await toolSearch.search(query, limit)).map((tool) => tool.definition.name),
    assertions,
    requestContext: requestContext(log),
    onUnexpectedError,
    onRefreshError: (error) =>
      log.warn({ err: errorText(error) }, 'tool refresh from the dashboard failed; keeping the current tools'),
  });

  return {
    app,
    metricsApp: new Hono().route('/metrics', metricsRoutes(metrics, null)),
    store,
    start() {
      void readiness.modelChecked.then(async () =>
        log.info({ readiness: await readiness.report() }, 'embedding model checked'),
      );
      embeddingModel.then(
        (model) => cache.attachModel(model),
        () => undefined,
      );
      // Each downstream loads on its own; one that stays down never holds up the others' refreshes.
      refresher
        .initialLoad()
        .catch((error: unknown) => log.error({ err: errorText(error) }, 'could not load tools from the downstreams'));
      refresher.start();
    },
    async close() {
      refresher.stop();
      await cache.idle();
      await settlements.drain();
      await Promise.all([auditTrail.flush(), usageRecorder.flush()]);
      // The local model's worker thread is stopped; a remote model has nothing to close.
      await embeddingModel.then(
        (model) => model.close?.(),
        () => undefined,
      );
      await Promise.allSettled([forwarders.close(), store.close(), largeAnswers.close()]);
    },
  };
}

/** Every instance derives the same keys from the shared signing key: no coordination, no key store. */
function assertionSigner(config: GatewayConfig): GatewayAssertionSigner | undefined {
  if (!config.assertion.enabled) return undefined;
  const { enabled: _enabled, ...settings } = config.assertion;
  return new GatewayAssertionSigner({ signingKey: config.jwt.signingKey, ...settings });
}

function openStore(config: GatewayConfig, log: Logger, metrics: GatewayMetrics): Promise<GatewayStore> {
  return createStore(config.store.connectionString, {
    onError: (error) => {
      metrics.storeError();
      log.error({ err: errorText(error) }, 'store unavailable');
    },
    usageRetentionDays: config.usage.retentionDays,
  });
}

/**
 * The audit trail and the one event that feeds it, the usage counters and the
 * metrics, so they can never disagree: a call is counted where, and as often
 * as, it is audited (once).
 */
function auditing(store: GatewayStore, log: Logger, metrics: GatewayMetrics) {
  const auditTrail = new AuditTrail({
    log: store.audit,
    // The record's own request id on the line, as every other line of that request has it.
    logLine: (entry) => log.info({ requestId: entry.requestId ?? undefined, audit: entry }, 'audit'),
    onError: (error) => log.warn({ err: errorText(error) }, 'audit write failed; will retry'),
    requestId: currentRequestId,
  });
  const usageRecorder = new UsageRecorder({
    store: store.usage,
    onError: (error) => log.warn({ err: errorText(error) }, 'usage counters not written; will retry'),
  });
  const audit = (event: AuditEvent) => {
    auditTrail.record(event);
    usageRecorder.record(event);
    metrics.observe(event);
  };
  return { auditTrail, usageRecorder, audit };
}

/** Budgets are settled after the reply; a budget read on this instance waits for its pending writes. */
function settlementQueue(store: GatewayStore, log: Logger, metrics: GatewayMetrics): SettlementQueue {
  const settlements = new SettlementQueue({
    ledger: store.budget,
    onError: (error, { agentId, granted }, willRetry) => {
      metrics.storeError();
      if (willRetry) log.warn({ err: errorText(error), agentId }, 'budget settlement failed; retrying');
      else
        log.error(
          { err: errorText(error), agentId, granted },
          'budget settlement given up; the reservation lapses uncharged',
        );
    },
  });
  metrics.countPendingSettlements(() => settlements.pending);
  return settlements;
}

function toolRefresher(
  config: GatewayConfig,
  store: GatewayStore,
  catalog: ToolCatalog,
  log: Logger,
  audit: (event: AuditEvent) => void,
  afterLoad: () => void,
): ToolRefresher {
  return new ToolRefresher({
    catalog,
    downstreams: config.downstreams,
    refreshIntervalMs: config.toolRegistry.refreshSeconds * 1000,
    state: store.toolRegistryState,
    audit,
    onLoaded: (load, reason, notes) => {
      const { downstream } = load;
      for (const problem of load.problems) log.error({ downstream, problem }, 'tool definition left out');
      for (const note of notes) log.info({ downstream, note }, 'OpenAPI operation imported with a change');
      for (const collision of load.collisions) log.error({ downstream, collision }, describeCollision(collision));
      log.info(
        { downstream, tools: load.tools, reason },
        `loaded ${load.tools.length} tools from downstream ${downstream}`,
      );
      afterLoad();
    },
    onRetry: (attempt, reason, downstream) =>
      log.warn({ downstream, attempt, reason }, `downstream ${downstream}: /gw/schema not reachable yet; retrying`),
    onError: (error, reason, downstream) =>
      log.warn(
        { downstream, err: errorText(error), reason },
        `tool refresh failed${downstream ? ` for downstream ${downstream}` : ''}; keeping the current tools`,
      ),
  });
}

/** What each downstream's tools are read from, as readiness names it. */
function schemaNames(downstreams: GatewayConfig['downstreams']): (downstream: string) => string {
  const openApi = new Set(downstreams.filter((downstream) => downstream.openApi).map((downstream) => downstream.name));
  return (downstream) => (openApi.has(downstream) ? 'OpenAPI document' : '/gw/schema');
}

/** Each downstream's breaker moves are logged and counted on their own; the unlabelled gauge says the worst of them. */
function breakerLog(log: Logger, metrics: GatewayMetrics, worst: () => BreakerState) {
  return (downstream: string, { from, to, failure }: BreakerStateChange) => {
    metrics.downstreamBreakerState(downstream, to);
    metrics.breakerState(worst());
    log.warn({ downstream, from, to, failure }, `circuit breaker ${to} (downstream ${downstream})`);
  };
}

function responseCache(config: GatewayConfig, store: GatewayStore, log: Logger): SemanticCache {
  return new SemanticCache({
    cache: store.cache,
    generation: store.cacheGeneration,
    // Re-read once a second, in the background, on Redis too: a read on every call cost one GET per
    // shard (16 on a cluster, on every master). Another instance's write is seen within that second.
    generationRefreshMs: 1_000,
    keySecret: derivedKey(config, 'cache keys'),
    // The model loads in the background; until then the semantic tier is off and the exact tier works.
    model: null,
    enabled: config.cache.enabled,
    semantic: config.cache.semantic,
    threshold: config.cache.similarityThreshold,
    ttlMs: config.cache.ttlMs,
    tools: config.cache.tools,
    onError: (error) =>
      error instanceof EmbeddingModelError
        ? log.warn(
            { err: errorText(error) },
            'semantic cache skipped for this call: the arguments could not be embedded',
          )
        : log.warn({ err: errorText(error) }, 'cache unavailable; answering from the downstream'),
  });
}
