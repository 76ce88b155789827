import { serve } from '@hono/node-server';
import {
  AgentService,
  ConfigError as CoreConfigError,
  createOpenAiEmbeddingModel,
  createStore,
  HttpForwarder,
  loadLocalEmbeddingModel,
  McpService,
  TokenService,
  type EmbeddingModel,
} from '@tollgate/gateway-core';
import type { GatewayConfig } from './config/gateway-config.js';
import { ConfigError } from './config/gateway-config.js';
import { loadGatewayConfig } from './config/load.js';
import { ConfigFileError } from './config/sources.js';
import { createGatewayApp } from './gateway-app.js';
import { createLogger, type Logger } from './logger.js';
import { createReadiness } from './readiness.js';
import { fetchToolSchema } from './registry/fetch-tool-schema.js';
import { ToolCatalog } from './registry/tool-catalog.js';
import { mcpRoutes } from './routes/mcp.js';

const VERSION = '0.1.0';
const MAX_MCP_BODY_BYTES = 1024 * 1024;
const SHUTDOWN_DEADLINE_MS = 10_000;

/** Refuses to start with one line per problem and no stack trace. */
function refuse(lines: string[]): never {
  for (const line of lines) process.stderr.write(`tollgate: refusing to start: ${line}\n`);
  process.exit(1);
}

function readConfig(): GatewayConfig {
  try {
    const { config, warnings } = loadGatewayConfig(process.argv.slice(2), process.env);
    for (const warning of warnings) process.stderr.write(`tollgate: warning: ${warning}\n`);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) refuse(error.problems);
    if (error instanceof ConfigFileError || error instanceof CoreConfigError) refuse([error.message]);
    throw error;
  }
}

function loadEmbeddingModel(config: GatewayConfig): Promise<EmbeddingModel> {
  const embedding = config.embedding;
  if (embedding.provider === 'local') return loadLocalEmbeddingModel();
  return Promise.resolve(createOpenAiEmbeddingModel({ baseUrl: embedding.baseUrl, model: embedding.model, apiKey: embedding.apiKey }));
}

async function loadTools(config: GatewayConfig, catalog: ToolCatalog, log: Logger, signal: AbortSignal): Promise<void> {
  const schema = await fetchToolSchema({
    downstreamBaseUrl: config.downstream.baseUrl,
    signal,
    onRetry: (attempt, reason) => log.warn({ attempt, reason }, 'downstream /gw/schema not reachable yet; retrying'),
  });
  for (const problem of catalog.load(schema)) log.error({ problem }, 'tool definition left out');
  log.info({ tools: catalog.registry.list().map((tool) => tool.definition.name) }, `loaded ${catalog.registry.size} tools from the downstream`);
}

async function main(): Promise<void> {
  const config = readConfig();
  const log = createLogger();
  const store = await createStore(config.store.connectionString, {
    onError: (error) => log.error({ err: error.message }, 'store unavailable'),
  }).catch((error: unknown) => refuse([error instanceof Error ? error.message : String(error)]));
  const tokens = new TokenService({ signingKey: config.jwt.signingKey });
  const agents = new AgentService({ store, tokens });
  const catalog = new ToolCatalog();
  const forwarder = new HttpForwarder({
    baseUrl: config.downstream.baseUrl,
    headers: config.downstream.headers,
    timeoutMs: config.downstream.timeoutMs,
  });
  const mcp = new McpService({
    sessions: store.sessions,
    sessionIdleMs: config.mcp.sessionIdleMinutes * 60_000,
    toolCall: { registry: () => catalog.registry, budget: store.budget, forwarder },
    serverInfo: { name: 'tollgate', version: VERSION },
  });
  const embeddingModel = loadEmbeddingModel(config);
  const readiness = createReadiness({ store, embeddingModel });
  const onUnexpectedError = (error: unknown) => log.error({ err: error instanceof Error ? error.stack : String(error) }, 'unexpected error');

  const app = createGatewayApp({
    config,
    agents,
    tokens,
    readiness,
    knownScopes: () => catalog.scopes(),
    onUnexpectedError,
    mount: (root) =>
      root.route(
        '/mcp',
        mcpRoutes({ mcp, agents, isReady: async () => catalog.loaded && (await readiness.ready()), maxBodyBytes: MAX_MCP_BODY_BYTES, onUnexpectedError }),
      ),
  });

  const stopLoading = new AbortController();
  const server = serve({ fetch: app.fetch, port: config.server.port, hostname: config.server.host }, (info) => {
    log.info({ port: info.port, host: config.server.host, store: store.kind, development: config.development }, `tollgate gateway listening on http://${config.server.host}:${info.port}`);
  });

  void readiness.modelChecked.then(async () => log.info({ readiness: await readiness.report() }, 'embedding model checked'));
  loadTools(config, catalog, log, stopLoading.signal).catch((error: unknown) => {
    if (!stopLoading.signal.aborted) log.error({ err: error instanceof Error ? error.message : String(error) }, 'could not load tools from the downstream');
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    stopLoading.abort();
    setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref();
    server.close(async () => {
      await Promise.allSettled([forwarder.close(), store.close()]);
      process.exit(0);
    });
    // Idle keep-alive connections would hold close() open until they time out.
    (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`tollgate: fatal: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
