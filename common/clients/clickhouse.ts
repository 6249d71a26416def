// ClickHouse client factory and helpers that hide the quirks of 18.16 (see README, "ClickHouse").
import { createClient, type ClickHouseClient } from '@clickhouse/client';

export interface ClickHouseConfig {
  url: string;
  username: string;
  password: string;
  database: string;
}

export function createClickHouse(config: ClickHouseConfig): ClickHouseClient {
  return createClient({
    url: config.url,
    username: config.username,
    password: config.password,
    database: config.database,
    request_timeout: 30_000,
    compression: { request: false, response: true },
    // The client logs every failed request at ERROR; our callers log with context instead.
    log: { level: 127 as never },
    clickhouse_settings: { date_time_input_format: 'best_effort' },
  });
}

/** The ClickHouse error code in a failure, parsed from the message (18.16 errors carry no `.code`). */
export function clickhouseErrorCode(error: unknown): number | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const match = /Code: (\d+)/.exec(message);
  return match ? Number(match[1]) : undefined;
}

// Codes that mean "the statement itself is wrong": retrying cannot help.
const permanentCodes = new Set([6, 27, 36, 41, 47, 53, 60, 62, 69, 70, 72, 81, 117, 128, 192, 215, 241]);

/** Transient = the server was unreachable, busy or timed out; permanent = bad SQL, bad data. */
export function isTransientClickHouseError(error: unknown): boolean {
  const code = clickhouseErrorCode(error);
  if (code === undefined) return true; // network-level failure (ECONNREFUSED, socket hang up, timeout)
  if (code === 241) return true; // memory limit exceeded: may pass later
  return !permanentCodes.has(code);
}

/** Runs a SELECT and returns its rows as objects. */
export async function queryRows<T>(client: ClickHouseClient, query: string): Promise<T[]> {
  const result = await client.query({ query, format: 'JSONEachRow' });
  return result.json<T>();
}

/** Quotes a value that was already validated (enum member, UUID, slug) as a SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A finite number for SQL, refusing anything else so no text can slip into a statement. */
export function sqlNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  return String(value);
}
