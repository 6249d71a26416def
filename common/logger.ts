// Structured logs through pino: one JSON line per event on stdout, `{"level":"info","time":"…",
// "msg":"…","service":"gateway",…}`. No global state: each process builds one in its composition
// root and passes it down. API keys are never logged: nothing logs request headers, and pino's
// redaction removes any field named like a key (or an X-API-Key header) should one slip into a
// log call, so a plaintext key cannot reach the log store through a future field either.
import { pino, type DestinationStream } from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** Field paths whose values are replaced by "[redacted]" wherever a log call puts them. */
export const REDACTED_PATHS = [
  'api_key',
  'apiKey',
  'plaintext',
  'key_plaintext',
  'headers["x-api-key"]',
  'headers["x-operator-token"]',
  '*.api_key',
  '*.apiKey',
  '*.plaintext',
  '*.headers["x-api-key"]',
  '*.headers["x-operator-token"]',
];

export function createLogger(
  level: LogLevel,
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stdout.write(line),
): Logger {
  const destination: DestinationStream = { write };
  const root = pino(
    {
      level,
      base,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      // Level names, not pino's numbers: the lines stay readable and grep-able (`"level":"warn"`).
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination,
  );
  return wrap(root);
}

function wrap(instance: pino.Logger): Logger {
  return {
    debug: (msg, fields) => instance.debug(fields ?? {}, msg),
    info: (msg, fields) => instance.info(fields ?? {}, msg),
    warn: (msg, fields) => instance.warn(fields ?? {}, msg),
    error: (msg, fields) => instance.error(fields ?? {}, msg),
    child: (fields) => wrap(instance.child(fields)),
  };
}

export function errorFields(error: unknown): Record<string, unknown> {
  // A wrapped failure (a warehouse read's "clickhouse is unavailable") keeps what actually failed.
  if (error instanceof Error && error.cause !== undefined)
    return { error: error.message, error_name: error.name, cause: messageOf(error.cause) };
  if (error instanceof Error) return { error: error.message, error_name: error.name };
  return { error: String(error) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
