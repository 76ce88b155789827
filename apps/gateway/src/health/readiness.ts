import { checkEmbeddingModel, type ComponentHealth, type EmbeddingModel } from '@tollgate/gateway-core';
import { checkStore, type GatewayStore } from '@tollgate/gateway-core/store';
import type { DownstreamHealth, DownstreamsHealth } from '../registry/downstream-health.js';

/**
 * Contract 2.6, with a component per downstream. `Degraded`: ready (200),
 * some downstream is not fully served, or part of the store is away (a
 * master of a cluster: its agents' calls are refused, the others served);
 * `Unhealthy` (503): the store or the model is down, or no downstream's
 * tools are loaded, exactly when /mcp answers 503 too.
 */
export interface ReadinessReport {
  status: 'Healthy' | 'Degraded' | 'Unhealthy';
  /** `workers`: only with `Gw:Http:Workers` > 1, while some worker is not ready (cluster/workers-readiness.ts). */
  components: { cacheStore: ComponentHealth; embeddingModel: ComponentHealth; workers?: ComponentHealth } & Record<
    `downstream:${string}`,
    DownstreamHealth
  >;
}

export interface Readiness {
  report(): Promise<ReadinessReport>;
  /**
   * The /mcp gate, true exactly when the report would not be Unhealthy. A
   * ready verdict younger than `gateIntervalMs` is reused so the hot path
   * does not ping the store; one somewhat older (`STALE_VERDICT_GRACE_MS`)
   * is reused while a fresh check runs in the background, so no call waits
   * on a store that is slow to answer; otherwise a fresh check runs.
   */
  ready(): Promise<boolean>;
  /** Settles once the embedding model has loaded (or failed to) and been checked. */
  readonly modelChecked: Promise<void>;
}

export interface ReadinessOptions {
  store: GatewayStore;
  /** Resolves once the model is loaded; rejects when loading failed. */
  embeddingModel: Promise<EmbeddingModel>;
  /** Each downstream's tools and breaker, for the report; absent, tools are not part of readiness. */
  downstreams?: () => DownstreamsHealth;
  /**
   * Whether any downstream's tools are loaded (`DownstreamsHealth.servable`),
   * cheaply: the gate asks on every /mcp request.
   */
  toolsLoaded?: () => boolean;
  gateIntervalMs?: number;
  /** A loaded model is checked again, in the background, when its verdict is older than this. */
  modelRecheckMs?: number;
}

/**
 * The store is checked with a real round trip on every report. The model is
 * healthy once it has embedded a test sentence; a loaded model is checked
 * again in the background when its verdict is older than `modelRecheckMs`
 * (the local model's worker thread can die and be restarted), so a report
 * never waits for an embedding and stays true to within that interval.
 */
/**
 * How long past `gateIntervalMs` a ready verdict still opens the gate while
 * the next check runs: longer than a check can take (the store's 2 s command
 * timeout). A call let through meanwhile still fails closed on whatever part
 * of the store it cannot reach.
 */
const STALE_VERDICT_GRACE_MS = 5_000;

export function createReadiness({
  store,
  embeddingModel,
  downstreams,
  toolsLoaded,
  gateIntervalMs = 1_000,
  modelRecheckMs = 30_000,
}: ReadinessOptions): Readiness {
  let model: ComponentHealth = { status: 'Unhealthy', description: 'embedding model is loading' };
  let loaded: EmbeddingModel | null = null;
  let modelCheckedAt = Number.NEGATIVE_INFINITY;
  let rechecking: Promise<void> | undefined;
  const judgeModel = (health: ComponentHealth) => {
    model = health;
    modelCheckedAt = Date.now();
  };
  const modelChecked = embeddingModel
    .then(
      (ready) => {
        loaded = ready;
        return checkEmbeddingModel(ready);
      },
      (error: unknown) => ({
        status: 'Unhealthy' as const,
        description: `embedding model failed to load: ${error instanceof Error ? error.message : String(error)}`,
      }),
    )
    .then(judgeModel);
  const recheckModel = () => {
    if (loaded === null || rechecking || Date.now() - modelCheckedAt < modelRecheckMs) return;
    rechecking = checkEmbeddingModel(loaded)
      .then(judgeModel)
      .finally(() => (rechecking = undefined));
  };

  let readyAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<ReadinessReport> | undefined;

  const check = async (): Promise<ReadinessReport> => {
    recheckModel();
    const cacheStore = await checkStore(store);
    // A store that answers in part (Degraded) is ready: the calls it cannot serve are refused one by one.
    const ready = cacheStore.status !== 'Unhealthy' && model.status === 'Healthy';
    readyAt = ready ? Date.now() : Number.NEGATIVE_INFINITY;
    const tools = downstreams?.();
    const components = { cacheStore, embeddingModel: model, ...tools?.components };
    const degraded =
      cacheStore.status === 'Degraded' ||
      Object.values(tools?.components ?? {}).some((component) => component.status !== 'Healthy');
    const status = !ready || tools?.servable === false ? 'Unhealthy' : degraded ? 'Degraded' : 'Healthy';
    return { status, components };
  };
  const report = () => {
    inFlight ??= check().finally(() => (inFlight = undefined));
    return inFlight;
  };

  return {
    report,
    modelChecked,
    async ready() {
      if (toolsLoaded?.() === false) return false;
      const age = Date.now() - readyAt;
      if (age <= gateIntervalMs) return true;
      if (age <= gateIntervalMs + STALE_VERDICT_GRACE_MS) {
        void report();
        return true;
      }
      return (await report()).status !== 'Unhealthy';
    },
  };
}
