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

// Which failures are transient (retry) and which may be the data's fault: clickhouse-errors.ts.
export { clickhouseErrorCode, isTransientClickHouseError } from './clickhouse-errors.ts';

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
