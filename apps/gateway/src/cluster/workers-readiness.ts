import cluster, { type Worker } from 'node:cluster';
import type { Readiness, ReadinessReport } from '../health/readiness.js';

/** A worker's own verdict, sent to its primary. */
const WORKER_READY = 'tollgate:worker-ready';
/** The primary's verdict on all its workers together, sent to each. */
const WORKERS_READY = 'tollgate:workers-ready';

/** How often a worker tells its primary whether it is ready (a change reaches every worker's report within this). */
export const WORKER_READY_INTERVAL_MS = 500;

interface WorkersVerdict {
  ready: boolean;
  readyCount: number;
  expected: number;
}

type Message = { tollgate?: unknown; ready?: unknown; readyCount?: unknown; expected?: unknown } | null;

/**
 * The primary's view of its workers' readiness: all ready only when as many
 * workers as configured run and each said it is ready. A worker that exits
 * takes the verdict back to not ready until its replacement says it is, so a
 * load balancer stops sending traffic that some worker would refuse.
 */
export class WorkersReadiness {
  readonly #expected: number;
  readonly #ready = new Map<number, boolean>();
  #last: boolean | undefined;

  constructor(expected: number) {
    this.#expected = expected;
  }

  /** A worker's message; answers it with the verdict and tells every worker when the verdict moved. */
  heard(worker: Worker, message: unknown, everyone: () => Iterable<Worker>): void {
    if ((message as Message)?.tollgate !== WORKER_READY) return;
    this.#ready.set(worker.id, (message as Message)?.ready === true);
    if (!this.#moved()) tell(worker, this.verdict());
    else for (const each of everyone()) tell(each, this.verdict());
  }

  /** A worker exited: not ready until its replacement says so. */
  gone(worker: Worker, everyone: () => Iterable<Worker>): void {
    this.#ready.delete(worker.id);
    if (this.#moved()) for (const each of everyone()) tell(each, this.verdict());
  }

  isReady(workerId: number): boolean {
    return this.#ready.get(workerId) === true;
  }

  verdict(): WorkersVerdict {
    const readyCount = [...this.#ready.values()].filter(Boolean).length;
    return { ready: readyCount >= this.#expected, readyCount, expected: this.#expected };
  }

  #moved(): boolean {
    const now = this.verdict().ready;
    const moved = now !== this.#last;
    this.#last = now;
    return moved;
  }
}

function tell(worker: Worker, verdict: WorkersVerdict): void {
  if (worker.isConnected()) worker.send({ tollgate: WORKERS_READY, ...verdict }, () => undefined);
}

/**
 * In a cluster worker, readiness as the load balancer must see it: the
 * worker's own report, Unhealthy (503) while any worker of the gateway is
 * not ready, with a `workers` component saying how many are. The /mcp gate
 * (`ready()`) stays the worker's own: a ready worker serves while another
 * starts. Outside a cluster, `readiness` unchanged.
 */
export function acrossWorkers(readiness: Readiness): Readiness {
  if (!cluster.isWorker) return readiness;
  // Unknown until the primary answers: not ready.
  let workers: WorkersVerdict = { ready: false, readyCount: 0, expected: 0 };
  process.on('message', (message: unknown) => {
    const heard = message as Message;
    if (heard?.tollgate !== WORKERS_READY) return;
    workers = { ready: heard.ready === true, readyCount: Number(heard.readyCount), expected: Number(heard.expected) };
  });
  const tellPrimary = () =>
    void readiness.ready().then(
      (ready) => process.send?.({ tollgate: WORKER_READY, ready }),
      () => process.send?.({ tollgate: WORKER_READY, ready: false }),
    );
  tellPrimary();
  setInterval(tellPrimary, WORKER_READY_INTERVAL_MS).unref();
  return {
    ...readiness,
    async report(): Promise<ReadinessReport> {
      const own = await readiness.report();
      if (workers.ready || own.status === 'Unhealthy') return own;
      const description = `${workers.readyCount} of ${workers.expected || 'the'} workers ready`;
      return { status: 'Unhealthy', components: { ...own.components, workers: { status: 'Unhealthy', description } } };
    },
  };
}
