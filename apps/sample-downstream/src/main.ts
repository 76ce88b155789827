import { serve } from '@hono/node-server';
import type { RequireGatewayOptions } from '@tollgate/host-kit';
import type { Hono } from 'hono';
import { createApp } from './app.js';
import { gatewayFromEnv } from './gateway-env.js';

const DEFAULT_PORT = 8081;
const SHUTDOWN_GRACE_MS = 5_000;

function portFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`sample-downstream: PORT must be an integer from 0 to 65535, got "${value}"`);
    process.exit(1);
  }
  return port;
}

const port = portFromEnv(process.env.PORT);
const hostname = process.env.HOST || '0.0.0.0';

/** The gateway to trust (undefined: REQUIRE_GATEWAY=false); a bad setting stops the process. */
function gatewayTrust(listeningPort: number): RequireGatewayOptions | undefined {
  const trust = gatewayFromEnv(process.env, listeningPort);
  if (!trust.ok) {
    console.error(`sample-downstream: ${trust.problem}`);
    process.exit(1);
  }
  return trust.gateway;
}

// Checked before listening; only the default audience changes once the port is known.
gatewayTrust(port);

/**
 * Built once the port is known: on PORT=0 the default audience is the
 * address actually listened on. Requests are only read after that.
 */
let app: Hono | undefined;
const server = serve({ fetch: (request) => app!.fetch(request), port, hostname }, (info) => {
  const gateway = gatewayTrust(info.port);
  app = createApp({ gateway });
  const trust = gateway
    ? `tool routes answer only the gateway: keys ${String(gateway.jwks)}, audience ${String(gateway.audience)}`
    : 'REQUIRE_GATEWAY=false: tool routes open to direct calls';
  console.log(`sample-downstream listening on http://${info.address}:${info.port} (tools at /gw/schema; ${trust})`);
});

function shutdown(signal: NodeJS.Signals): void {
  console.log(`sample-downstream: ${signal} received, closing`);
  // Finish in-flight requests; give up after the grace period.
  setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
  server.close(() => process.exit(0));
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
