import pino from 'pino';

/**
 * Structured JSON logs on stdout. Credentials never reach a log line:
 * the paths below are redacted wherever they appear.
 */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info') {
  return pino({
    level,
    base: { service: 'tollgate-gateway' },
    redact: { paths: ['token', 'apiKey', 'signingKey', '*.token', '*.apiKey', '*.authorization', 'headers.authorization'], censor: '[REDACTED]' },
  });
}

export type Logger = ReturnType<typeof createLogger>;
