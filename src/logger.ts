import pino from 'pino';

/** Structured JSON logs; the level comes from LOG_LEVEL. Secrets are redacted by path. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info') {
  return pino({
    level,
    base: { service: 'llm-gateway' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-goog-api-key"]',
        '*.secret',
        '*.apiKey',
      ],
      censor: '[redacted]',
    },
  });
}

export type Logger = pino.Logger;
