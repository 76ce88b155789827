import cluster, { type Worker } from 'node:cluster';
import { isAccepting } from '../cluster/connection-handoff.js';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * Metrics across worker processes (`Gw:Http:Workers` > 1). Each worker keeps
 * its own registry; the primary, which serves `Gw:Metrics:Port`, asks every
 * listening worker for it over the cluster's IPC channel and merges the
 * answers with prom-client's aggregation (counters and histograms summed,
 * gauges by each metric's `aggregator`: summed unless it says otherwise).
 * Our own messages rather than prom-client's `clusterMetrics()`: that one asks
 * workers still starting up, which cannot answer yet, and fails the whole
 * scrape after 5 s; here a scrape merges the workers that answered in time.
 */
const REQUEST = 'tollgate:metrics-request';
const REPLY = 'tollgate:metrics-reply';

interface MetricsRequest {
  type: typeof REQUEST;
  id: number;
}

interface MetricsReply {
  type: typeof REPLY;
  id: number;
  metrics?: unknown[];
  error?: string;
}

const isMessage = <T extends { type: string }>(message: unknown, type: T['type']): message is T =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

/** Worker side: answers the primary's scrapes with this registry. Does nothing outside a cluster worker. */
export function answerPrimaryScrapes(registry: Registry): void {
  if (!cluster.isWorker) return;
  process.on('message', (message: unknown) => {
    if (!isMessage<MetricsRequest>(message, REQUEST)) return;
    registry.getMetricsAsJSON().then(
      (metrics) => process.send?.({ type: REPLY, id: message.id, metrics } satisfies MetricsReply),
      (error: unknown) => process.send?.({ type: REPLY, id: message.id, error: String(error) } satisfies MetricsReply),
    );
  });
}

interface PendingScrape {
  waiting: Set<number>;
  answers: unknown[][];
  done: () => void;
}

/** Primary side: merges the registries of the workers that are listening. */
export class ClusterMetrics {
  readonly contentType = AggregatorRegistry.PROMETHEUS_CONTENT_TYPE;
  readonly #listening = new Set<Worker>();
  readonly #pending = new Map<number, PendingScrape>();
  #nextId = 0;

  constructor(private readonly timeoutMs = 2_000) {
    // Only workers that serve (their server takes the connections the
    // primary hands over) have built their registry and answer at once.
    cluster.on('exit', (worker) => this.#forget(worker));
    cluster.on('message', (worker, message: unknown) => {
      if (isAccepting(message)) this.#listening.add(worker);
      if (!isMessage<MetricsReply>(message, REPLY)) return;
      const scrape = this.#pending.get(message.id);
      if (!scrape?.waiting.delete(worker.id)) return;
      if (message.metrics) scrape.answers.push(message.metrics);
      if (scrape.waiting.size === 0) scrape.done();
    });
  }

  /** The merged metrics text, and how many workers were asked and answered. */
  async collect(): Promise<{ text: string; asked: number; answered: number }> {
    const id = this.#nextId++;
    const workers = [...this.#listening].filter((worker) => worker.isConnected());
    const scrape: PendingScrape = {
      waiting: new Set(workers.map((worker) => worker.id)),
      answers: [],
      done: () => undefined,
    };
    const finished = new Promise<void>((resolve) => {
      scrape.done = resolve;
      setTimeout(resolve, this.timeoutMs).unref();
    });
    this.#pending.set(id, scrape);
    for (const worker of workers) worker.send({ type: REQUEST, id } satisfies MetricsRequest);
    if (workers.length > 0) await finished;
    this.#pending.delete(id);
    const text =
      scrape.answers.length === 0 ? '' : await AggregatorRegistry.aggregate(scrape.answers as never).metrics();
    return { text, asked: workers.length, answered: scrape.answers.length };
  }

  #forget(worker: Worker): void {
    this.#listening.delete(worker);
    for (const scrape of this.#pending.values())
      if (scrape.waiting.delete(worker.id) && scrape.waiting.size === 0) scrape.done();
  }
}
