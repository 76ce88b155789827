import { checkEmbeddingModel, checkStore, type ComponentHealth, type EmbeddingModel, type GatewayStore } from '@tollgate/gateway-core';
import type { DownstreamHealth, DownstreamsHealth } from './registry/downstream-health.js';

/**
 * Contract 2.6, with a component per downstream. `Degraded`: ready (200),
 * some downstream is not fully served; `Unhealthy` (503): the store or the
 * model is down, or no downstream's tools are loaded, exactly when /mcp
 * answers 503 too.
 */
export interface ReadinessReport {
  status: 'Healthy' | 'Degraded' | 'Unhealthy';
  /** `workers`: only with `Gw:Http:Workers` > 1, while some worker is not ready (cluster/workers-readiness.ts). */
  components: { cacheStore: ComponentHealth; embeddingModel: ComponentHealth; workers?: ComponentHealth } & Record<`downstream:${string}`, DownstreamHealth>;
}

export interface Readiness {
  report(): Promise<ReadinessReport>;
  /**
   * The /mcp gate, true exactly when the report would not be Unhealthy. A
   * healthy store verdict younger than `gateIntervalMs` is reused so the hot
   * path does not ping the store; otherwise a fresh check runs.
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
  /** Whether any downstream's tools are loaded (`DownstreamsHealth.servable`), cheaply: the gate asks on every /mcp request. */
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
export function createReadiness({ store, embeddingModel, downstreams, toolsLoaded, gateIntervalMs = 1_000, modelRecheckMs = 30_000 }: ReadinessOptions): Readiness {
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

  let healthyAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<ReadinessReport> | undefined;

  const check = async (): Promise<ReadinessReport> => {
    recheckModel();
    const cacheStore = await checkStore(store);
    const healthy = cacheStore.status === 'Healthy' && model.status === 'Healthy';
    healthyAt = healthy ? Date.now() : Number.NEGATIVE_INFINITY;
    const tools = downstreams?.();
    const components = { cacheStore, embeddingModel: model, ...tools?.components };
    const degraded = Object.values(tools?.components ?? {}).some((component) => component.status !== 'Healthy');
    const status = !healthy || tools?.servable === false ? 'Unhealthy' : degraded ? 'Degraded' : 'Healthy';
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
      if (Date.now() - healthyAt <= gateIntervalMs) return true;
      return (await report()).status !== 'Unhealthy';
    },
  };
}
