import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { ConfigError } from '@tollgate/gateway-core/errors';
import { serveHandedConnections } from './cluster/connection-handoff.js';
import { superviseWorkers } from './supervisor.js';
import { composeGateway, GATEWAY_VERSION, type Gateway } from './compose.js';
import { withConfigKeys, type GatewayConfig } from './config/gateway-config.js';
import { loadGatewayConfig } from './config/load.js';
import { ConfigFileError } from './config/sources.js';
import { fastPathOf } from './mcp-transport/mcp-fast-path.js';
import { httpServer, listen } from './http/node-server.js';
import { createLogger, type Logger } from './observability/logger.js';
import { unreachableAtStart } from './registry/reachable-at-start.js';
import { startTracing } from './observability/tracing.js';

/** Refuses to start with one line per problem and no stack trace. */
function refuse(lines: string[]): never {
  for (const line of lines) process.stderr.write(`tollgate: refusing to start: ${line}\n`);
  process.exit(1);
}

function readConfig(): GatewayConfig {
  try {
    const { config, warnings } = loadGatewayConfig(process.argv.slice(2), process.env);
    // Workers read the same configuration again: their primary has said it once.
    if (!cluster.isWorker) for (const warning of warnings) process.stderr.write(`tollgate: warning: ${warning}\n`);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) refuse(error.message.split('\n'));
    if (error instanceof ConfigFileError) refuse([error.message]);
    throw error;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  await checkDownstreamsAtStart(config);
  // Gw:Http:Workers > 1: this process only supervises; each worker it forks runs the code below.
  if (cluster.isPrimary && config.http.workers > 1) return superviseWorkers(config, createLogger());
  // Before any call is served, so every span is recorded when OTEL_EXPORTER_OTLP_* configures tracing.
  const { tracing, warnings: tracingWarnings } = startTracing(GATEWAY_VERSION);
  for (const warning of tracingWarnings) process.stderr.write(`tollgate: warning: ${warning}\n`);
  const log = createLogger();
  if (tracing) log.info('OpenTelemetry tracing on: exporting spans over OTLP/HTTP');
  const gateway = await composeGateway(config, log).catch((error: unknown) => {
    // Checked at load already; should a core constructor still refuse an option, it names the key too.
    if (error instanceof ConfigError) refuse(withConfigKeys(error).message.split('\n'));
    throw error;
  });
  await checkStoreAtStart(config, gateway);

  const serverOptions = {
    port: config.server.port,
    host: config.server.host,
    http: config.http,
    fastPath: fastPathOf(gateway.app),
  };
  // A cluster worker listens on nothing: its primary accepts and hands it connections (cluster/connection-handoff.ts).
  const server = cluster.isWorker
    ? serveConnectionsOfPrimary(httpServer(gateway.app.fetch, serverOptions), log)
    : listen(gateway.app.fetch, serverOptions, (info) => {
        log.info(
          { port: info.port, host: config.server.host, store: gateway.store.kind, development: config.development },
          `tollgate gateway listening on http://${config.server.host}:${info.port}`,
        );
      });
  // In a cluster worker the primary serves the metrics port, with every worker's metrics merged.
  const metricsServer =
    config.metrics.port === undefined || cluster.isWorker
      ? undefined
      : listen(
          gateway.metricsApp.fetch,
          { port: config.metrics.port, host: config.server.host, http: config.http },
          (info) => log.info({ port: info.port }, `metrics on http://${config.server.host}:${info.port}/metrics`),
        );
  refuseWhenTaken(server, 'PORT', config);
  if (metricsServer) refuseWhenTaken(metricsServer, 'Gw:Metrics:Port', config);
  gateway.start();

  // SIGTERM: stop accepting, let calls in flight finish (their budgets settle
  // before they answer) up to the deadline, release connections, exit 0.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: draining calls in flight');
    const deadline = setTimeout(() => {
      log.error('shutdown deadline passed with calls still in flight; exiting');
      process.exit(1);
    }, config.http.shutdownDeadlineMs);
    deadline.unref();
    metricsServer?.close();
    server.close(async () => {
      await gateway.close();
      // Spans of the drained calls are still queued: export them (bounded by the exporter's timeout).
      await tracing?.shutdown().catch(() => undefined);
      log.info('stopped');
      process.exit(0);
    });
    // Connections whose last call ends during the drain go idle later: close them as they do,
    // or a client's connection pool holds server.close() open until the deadline.
    const closeIdle = () => server.closeIdleConnections();
    closeIdle();
    setInterval(closeIdle, 100).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

function serveConnectionsOfPrimary(server: Server, log: Logger): Server {
  serveHandedConnections(server);
  log.info('serving the connections the primary hands over');
  return server;
}

/**
 * A first run against a Redis that is not there says so and stops (development
 * mode only: a deployment starts before its Redis as often as not, and waits
 * for it, readiness saying why).
 */
async function checkStoreAtStart(config: GatewayConfig, gateway: Gateway): Promise<void> {
  if (!config.development || gateway.store.kind !== 'redis') return;
  try {
    await gateway.store.ping();
  } catch (error) {
    // The reason names host and port at most; the address itself may carry a password.
    const reason = error instanceof Error ? error.message.replace(/^The store is unavailable: /, '') : String(error);
    refuse([
      `ConnectionStrings:Store: the Redis it names is not reachable (${reason}): start Redis, or leave it unset ` +
        `for the in-memory store`,
    ]);
  }
}

/**
 * A first run against a downstream that nothing answers at says so and stops
 * (development mode only: a deployment in front of many APIs must not
 * crash-loop because one is down; it starts, retries, and readiness names it).
 */
async function checkDownstreamsAtStart(config: GatewayConfig): Promise<void> {
  // Workers: their primary checked before forking them.
  if (!config.development || cluster.isWorker) return;
  const lines = await unreachableAtStart(config.downstreams);
  if (lines.length > 0) refuse(lines);
}

/** A port another process holds is one line naming the setting, not an unhandled 'error' event's stack. */
function refuseWhenTaken(server: Server, setting: string, config: GatewayConfig): void {
  server.on('error', (error: NodeJS.ErrnoException) => {
    const port = setting === 'PORT' ? config.server.port : config.metrics.port;
    const where = `${config.server.host}:${port}`;
    if (error.code === 'EADDRINUSE')
      refuse([`${setting}: ${where} is already in use: stop what listens there or set ${setting} to a free port`]);
    if (error.code === 'EACCES')
      refuse([`${setting}: ${where} may not be opened by this user: set ${setting} to a port above 1023`]);
    refuse([`${setting}: cannot listen on ${where}: ${error.message}`]);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`tollgate: fatal: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
