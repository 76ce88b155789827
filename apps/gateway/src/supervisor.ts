import cluster, { type Worker } from 'node:cluster';
import { Hono } from 'hono';
import type { GatewayConfig } from './config/gateway-config.js';
import { listen } from './http/node-server.js';
import type { Logger } from './observability/logger.js';
import { ClusterMetrics } from './observability/cluster-metrics.js';
import { clusterMetricsRoutes } from './routes/metrics.js';
import { acceptForWorkers, isAccepting } from './cluster/connection-handoff.js';
import { RestartBackoff } from './cluster/restart-backoff.js';
import { WorkersReadiness } from './cluster/workers-readiness.js';

/** Past the workers' own shutdown deadline, how long the primary still waits before killing them. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * The primary process of `Gw:Http:Workers` > 1: forks the workers, accepts
 * every connection and hands it to one of them in turn (ready ones first;
 * see cluster/connection-handoff.ts for why not Node's own round-robin), tells each
 * worker whether all of them are ready (their /health/ready says so, see
 * cluster/workers-readiness.ts), replaces a worker that dies (with a growing wait while
 * they keep dying young), serves `Gw:Metrics:Port` with every worker's
 * metrics merged, and on SIGTERM lets every worker drain as a single process
 * would, then exits 0 if they all stopped cleanly. It loads no model, opens
 * no store and serves no call.
 */
export function superviseWorkers(config: GatewayConfig, log: Logger): void {
  const primary = log.child({ role: 'primary' });
  const backoff = new RestartBackoff();
  const live = new Map<number, { worker: Worker; startedAt: number }>();
  /** Workers that take connections, in the order they said so. */
  const accepting = new Map<number, Worker>();
  const readiness = new WorkersReadiness(config.http.workers);
  const everyone = () => [...live.values()].map(({ worker }) => worker);
  let turn = 0;
  /** The next worker in turn among the ready ones, or among those accepting while none is ready. */
  const pick = (tried: ReadonlySet<number>): Worker | undefined => {
    const candidates = [...accepting.values()].filter((worker) => !tried.has(worker.id) && worker.isConnected());
    const ready = candidates.filter((worker) => readiness.isReady(worker.id));
    const pool = ready.length > 0 ? ready : candidates;
    return pool.length === 0 ? undefined : pool[turn++ % pool.length];
  };
  const replacements = new Set<NodeJS.Timeout>();
  let stopping = false;
  let cleanStop = true;

  const fork = () => {
    const worker = cluster.fork();
    live.set(worker.id, { worker, startedAt: Date.now() });
    primary.info(
      { worker: worker.id, pid: worker.process.pid },
      `worker ${worker.id} started (pid ${worker.process.pid})`,
    );
  };

  const finish = () => {
    primary.info(cleanStop ? 'stopped' : 'stopped; a worker did not stop cleanly');
    process.exit(cleanStop ? 0 : 1);
  };

  cluster.on('message', (worker, message: unknown) => {
    if (isAccepting(message)) accepting.set(worker.id, worker);
    listener.heard(worker, message);
    readiness.heard(worker, message, everyone);
  });

  cluster.on('exit', (worker, code, signal) => {
    const startedAt = live.get(worker.id)?.startedAt ?? Date.now();
    live.delete(worker.id);
    accepting.delete(worker.id);
    readiness.gone(worker, everyone);
    listener.workerGone(worker.id);
    const facts = { worker: worker.id, pid: worker.process.pid, code, signal };
    if (stopping) {
      if (code !== 0) cleanStop = false;
      primary.info(facts, `worker ${worker.id} stopped`);
      if (live.size === 0) finish();
      return;
    }
    const waitMs = backoff.next(Date.now() - startedAt);
    primary.error(
      { ...facts, restartInMs: waitMs },
      `worker ${worker.id} exited unexpectedly; starting a replacement in ${waitMs} ms`,
    );
    const timer = setTimeout(() => {
      replacements.delete(timer);
      fork();
    }, waitMs);
    replacements.add(timer);
  });

  const metricsServer = serveClusterMetrics(config, primary);
  for (let i = 0; i < config.http.workers; i++) fork();
  const listener = acceptForWorkers({ port: config.server.port, host: config.server.host, pick }, (info) =>
    primary.info(
      { port: info.port, host: config.server.host, workers: config.http.workers },
      `tollgate gateway listening on http://${config.server.host}:${info.port}`,
    ),
  );

  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    for (const timer of replacements) clearTimeout(timer);
    primary.info({ signal, workers: live.size }, 'shutting down: every worker drains its calls in flight');
    // No new connection from now on, as a single process stops accepting; each worker drains its own.
    listener.close();
    metricsServer?.close();
    // Each worker runs the single process's shutdown: stop accepting, drain up to the deadline, exit.
    for (const { worker } of live.values()) worker.process.kill('SIGTERM');
    if (live.size === 0) finish();
    setTimeout(() => {
      primary.error({ workers: [...live.keys()] }, 'workers still running past the shutdown deadline; killing them');
      for (const { worker } of live.values()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, config.http.shutdownDeadlineMs + SHUTDOWN_GRACE_MS).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

function serveClusterMetrics(config: GatewayConfig, log: Logger) {
  if (config.metrics.port === undefined) return undefined;
  const app = new Hono().route('/metrics', clusterMetricsRoutes(new ClusterMetrics()));
  return listen(app.fetch, { port: config.metrics.port, host: config.server.host, http: config.http }, (info) =>
    log.info({ port: info.port }, `metrics of every worker on http://${config.server.host}:${info.port}/metrics`),
  );
}
