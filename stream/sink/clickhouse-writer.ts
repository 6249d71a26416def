// Batched ClickHouse writer: rows from all partitions join one pending insert, flushed when it
// reaches `maxRows` or is `maxDelayMs` old. Callers await the flush that holds their rows, and only
// then commit their Kafka offsets. Transient failures are retried (forever, with capped backoff),
// so a ClickHouse outage pauses consumption instead of losing or skipping data.
import type { ClickHouseClient } from '@clickhouse/client';
import { isTransientClickHouseError } from '../../common/clients/clickhouse.ts';
import { errorFields, type Logger } from '../../common/logger.ts';

export class PermanentInsertError extends Error {}

interface Pending {
  rows: Record<string, unknown>[];
  waiters: { resolve: () => void; reject: (error: unknown) => void }[];
  timer?: NodeJS.Timeout;
}

export interface WriterOptions {
  table: string;
  columns: string[];
  maxRows: number;
  maxDelayMs: number;
  logger: Logger;
}

export function createClickHouseWriter(client: ClickHouseClient, options: WriterOptions) {
  let pending: Pending | undefined;
  let inFlight = Promise.resolve();
  let closed = false;
  const stats = { rows: 0, inserts: 0, retries: 0 };

  async function insertWithRetry(rows: Record<string, unknown>[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.insert({
          table: options.table,
          values: rows,
          format: 'JSONEachRow',
          columns: options.columns as never,
        });
        stats.rows += rows.length;
        stats.inserts++;
        return;
      } catch (error) {
        if (!isTransientClickHouseError(error)) throw new PermanentInsertError((error as Error).message);
        if (closed && attempt >= 3) throw error;
        stats.retries++;
        const delay = Math.min(200 * 2 ** attempt, 5_000);
        options.logger.warn('insert failed, retrying', {
          table: options.table,
          attempt,
          delay_ms: delay,
          ...errorFields(error),
        });
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  function flush(): void {
    const batch = pending;
    if (!batch) return;
    pending = undefined;
    if (batch.timer) clearTimeout(batch.timer);
    // Inserts run one after another, so rows land in the order their offsets were read.
    inFlight = inFlight.then(async () => {
      try {
        await insertWithRetry(batch.rows);
        for (const waiter of batch.waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of batch.waiters) waiter.reject(error);
      }
    });
  }

  return {
    stats,
    /** Resolves once `rows` are stored; rejects with PermanentInsertError when the data is refused. */
    write(rows: Record<string, unknown>[]): Promise<void> {
      if (rows.length === 0) return Promise.resolve();
      if (closed) return Promise.reject(new Error(`writer for ${options.table} is closed`));
      return new Promise<void>((resolve, reject) => {
        if (!pending) {
          pending = { rows: [], waiters: [] };
          pending.timer = setTimeout(flush, options.maxDelayMs);
        }
        for (const row of rows) pending.rows.push(row);
        pending.waiters.push({ resolve, reject });
        if (pending.rows.length >= options.maxRows) flush();
      });
    },
    /** Flushes what is buffered and waits for every insert; later writes are refused. */
    async drain(): Promise<void> {
      flush();
      closed = true;
      await inFlight;
    },
  };
}

export type ClickHouseWriter = ReturnType<typeof createClickHouseWriter>;
