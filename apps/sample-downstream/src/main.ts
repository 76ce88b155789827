import { serve } from '@hono/node-server';
import { createApp } from './app.js';

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

const server = serve({ fetch: createApp().fetch, port, hostname }, (info) => {
  console.log(`sample-downstream listening on http://${info.address}:${info.port} (tools at /gw/schema)`);
});

function shutdown(signal: NodeJS.Signals): void {
  console.log(`sample-downstream: ${signal} received, closing`);
  // Finish in-flight requests; give up after the grace period.
  setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
  server.close(() => process.exit(0));
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
