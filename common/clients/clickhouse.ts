// ClickHouse client factory and helpers (see docs/stack.md, "ClickHouse"). Values never become SQL text:
// statements carry `{name:Type}` placeholders and the values travel as `query_params`.
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';

export interface ClickHouseConfig {
  url: string;
  username: string;
  password: string;
  database: string;
  /** Default 30 s; longer for batch jobs that read millions of rows (the estimate's backtest). */
  requestTimeoutMs?: number;
}

export function createClickHouse(config: ClickHouseConfig): ClickHouseClient {
  return createClient({
    url: config.url,
    username: config.username,
    password: config.password,
    database: config.database,
    request_timeout: config.requestTimeoutMs ?? 30_000,
    compression: { request: false, response: true },
    // The client logs every failed request at ERROR; our callers log with context instead.
    log: { level: 127 as never },
    // Tables with a deduplication window (migration 0040) would otherwise drop an insert whose
    // block equals a recent one. Only the stream's writer deduplicates, by the token it derives
    // from Kafka positions (stream/sink/insert-token.ts). `deduplicate_insert` (26.x; it overrides
    // the older insert_deduplicate) is missing from the client's setting types.
    clickhouse_settings: {
      date_time_input_format: 'best_effort',
      // On a sharded cluster the tables are Distributed: an insert returns once every shard has
      // stored its rows (or fails, and is retried with the same deduplication token), never
      // queued on the receiving node for later. No effect on a plain table.
      distributed_foreground_insert: 1,
      // An IN or JOIN subquery over a second Distributed table (the lookups by id through
      // listing_lookup) runs once and its result goes to every shard: the same answer as on one
      // server whatever the tables' sharding keys. The server's default refuses such queries.
      distributed_product_mode: 'global',
      ...({ deduplicate_insert: 'disable' } as ClickHouseSettings),
    },
    // Query parameters normally travel in the URL; past 4 KB (the stream's id lookups send 2,000
    // UUIDs) they go as multipart/form-data parts instead, so no proxy rejects an over-long URL.
    use_multipart_params_auto: true,
  });
}

// Which failures are transient (retry) and which may be the data's fault: clickhouse-errors.ts.
export {
  clickhouseErrorCode,
  insertCertainlyNotStored,
  isRowRefusal,
  isTransientClickHouseError,
} from './clickhouse-errors.ts';

/**
 * Runs a SELECT and returns its rows as objects, unchecked: for tests, benchmarks and the operator
 * scripts under infra/. The services read with defineQuery (common/warehouse/query.ts; eslint
 * refuses this import there). Every value goes in `params`, referenced in the statement as
 * `{name:Type}` (e.g. `WHERE listing_id = {id:UUID}`).
 */
export async function queryRows<T>(
  client: ClickHouseClient,
  query: string,
  params?: Record<string, unknown>,
): Promise<T[]> {
  const result = await client.query({ query, query_params: params, format: 'JSONEachRow' });
  return result.json<T>();
}
