import cluster from 'node:cluster';
import pino from 'pino';
import { logLevelOf } from '../config/server-section.js';
import { currentRequestId } from './request-id.js';

/**
 * Structured JSON logs on stdout, one line per event, each carrying the id
 * of the request it belongs to. Credentials never reach a log line: the
 * paths below are redacted wherever they appear, and nothing logs request
 * bodies or headers in the first place.
 */
export function createLogger(level = logLevelOf(process.env)) {
  return pino({
    level,
    // With Gw:Http:Workers > 1 every line says which worker process wrote it.
    base: cluster.isWorker
      ? { service: 'tollgate-gateway', worker: cluster.worker?.id }
      : { service: 'tollgate-gateway' },
    mixin: () => {
      const requestId = currentRequestId();
      return requestId === undefined ? {} : { requestId };
    },
    redact: {
      paths: ['token', 'apiKey', 'signingKey', '*.token', '*.apiKey', '*.authorization', 'headers.authorization'],
      censor: '[REDACTED]',
    },
  });
}

export type Logger = ReturnType<typeof createLogger>;
