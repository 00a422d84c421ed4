/**
 * One logger for every service: pino, JSON lines, secrets redacted. Request-scoped children carry
 * `requestId` so one request can be followed across services.
 */

import type { Logger } from 'pino';
import { pino } from 'pino';

export type { Logger };

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Where the lines go; defaults to stdout. Tests pass a stream to read them back. */
  destination?: pino.DestinationStream;
}

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["handshake-verifier"]',
  'headers.authorization',
  'headers.cookie',
  'headers["handshake-verifier"]',
  'authorization',
  'password',
  '*.password',
  'token',
  '*.token',
  'client_secret',
  '*.client_secret',
  'databaseUrl',
];

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.service,
      level: options.level ?? 'info',
      base: { service: options.service },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}

export function requestLogger(logger: Logger, requestId: string): Logger {
  return logger.child({ requestId });
}
