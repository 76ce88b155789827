import { MIN_SIGNING_KEY_BYTES } from '@tollgate/gateway-core/internal';
import { z } from 'zod';
import { declareKeys } from './declare.js';
import { optionalText } from './fields.js';

const LICENSE_REQUIRED = 'is required: the gateway refuses to start without a license key';

/** NODE_ENV: read before the others, since development mode relaxes some of them. */
export const MODE_KEYS = declareKeys({
  nodeEnv: {
    name: 'NODE_ENV',
    field: { schema: z.string().optional(), type: 'text' },
    description:
      '`development` turns on development mode (`/dev/*` endpoints, generated signing key, default downstream, ' +
      "and a start-up check that something answers at each downstream's base URL: see [when the first run goes " +
      'wrong](../development.md#when-the-first-run-goes-wrong)).',
  },
});

/** The gateway itself: where it listens, its license and its signing key. */
export const SERVER_KEYS = declareKeys({
  port: {
    name: 'PORT',
    field: {
      schema: z.coerce.number().int('must be a whole number').min(0).max(65_535, 'must be a TCP port').default(8080),
      type: 'TCP port',
    },
    description: 'The port the gateway listens on.',
  },
  host: {
    name: 'HOST',
    field: { schema: z.string().trim().min(1).default('0.0.0.0'), type: 'address' },
    description: 'The address the gateway listens on.',
  },
  licenseKey: {
    name: 'Gw:LicenseKey',
    field: { schema: z.string({ error: LICENSE_REQUIRED }).trim().min(1, LICENSE_REQUIRED), type: 'text' },
    defaultIs: '— (required)',
    description: 'The gateway refuses to start without it.',
  },
  signingKey: {
    name: 'Gw:Jwt:SigningKey',
    field: (development: boolean) =>
      development
        ? optionalText
        : { schema: z.string({ error: `is required (at least ${MIN_SIGNING_KEY_BYTES} bytes)` }), type: 'text' },
    defaultIs: '— (required; generated per process in development mode, with a warning)',
    description: `HS256 key for every JWT the gateway issues; at least ${MIN_SIGNING_KEY_BYTES} bytes (UTF-8).`,
  },
});

/** Where agents, sessions, budgets and usage live. */
export const STORE_KEYS = declareKeys({
  connectionString: {
    name: 'ConnectionStrings:Store',
    field: { ...optionalText, type: 'URL' },
    defaultIs: 'unset = embedded in-memory store',
    description:
      '`redis://…` or `rediss://…` for one Redis (required for more than one instance); ' +
      '`redis+cluster://host:port,host:port,…` or `rediss+cluster://…` for a Redis Cluster (its seed nodes; see ' +
      '[Redis Cluster](../operations/redis-and-cluster.md#redis-cluster)).',
  },
});

/** `Gw:Metrics:*`. */
export const METRICS_KEYS = declareKeys({
  port: {
    name: 'Gw:Metrics:Port',
    field: { schema: z.coerce.number().int().min(1).max(65_535, 'must be a TCP port').optional(), type: 'TCP port' },
    defaultIs: 'unset',
    description:
      'Also serve `/metrics` without authentication on this port (for an in-cluster scraper); `/metrics` on the ' +
      'main port needs an admin token.',
  },
});

/** `Gw:Usage:*`: the usage counters behind the dashboard's charts. */
export const USAGE_KEYS = declareKeys({
  retentionDays: {
    name: 'Gw:Usage:RetentionDays',
    field: {
      schema: z.coerce
        .number()
        .int('must be a whole number')
        .min(1, 'must be at least 1')
        .max(400, 'must be at most 400')
        .default(35),
      type: 'whole number 1–400',
    },
    description:
      "Whole UTC days of usage counters kept for the dashboard's charts and `GET /management/usage` (1 to 400).",
  },
});

/**
 * `LOG_LEVEL`: read by the logger, from the process environment only (the
 * logger starts before the configuration is read; not from the JSON file).
 */
export const LOG_KEYS = declareKeys({
  level: {
    name: 'LOG_LEVEL',
    field: {
      schema: z.string().default('info'),
      type: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
    },
    description: 'pino level of the JSON logs on stdout (an environment variable only, not read from the JSON file).',
  },
});

/** The logger's level as `env` sets it. */
export function logLevelOf(env: NodeJS.ProcessEnv): string {
  return LOG_KEYS.level.field.schema.parse(env[LOG_KEYS.level.name]);
}
