// Batched ClickHouse writer: rows from all partitions join one pending insert, flushed when it
// reaches `maxRows`, when no rows arrived for `quietMs` while at least `quietMinRows` are pending
// (the partitions of a Kafka fetch have all handed in their rows: waiting longer only delays their
// commits and the next fetch), or when it is `maxDelayMs` old (a trickle). Callers await the flush that holds their rows, and only
// then commit their Kafka offsets. Transient failures (an allow-list: connection, timeouts, the
// server's try-again codes; common/clients/clickhouse-errors.ts) are retried with capped backoff and
// never give up while running, so an outage pauses consumption instead of losing data. Any other
// failure may be a row's doing (a poison row would otherwise stall every insert behind it, inserts
// being serial): the insert is tried REFUSED_ATTEMPTS times, then bisected down to the refused rows,
// which are handed back to their caller (for quarantine) while every other row is stored.
//
// Fencing (issue 13 item 8, docs/stream.md "Effectively-once design"): a write made for a Kafka batch
// carries that batch's revocation signal (batch-fence.ts). When the partition is revoked, the write
// rejects at once (so the batch does not commit) and its rows are taken out of the insert as long as
// that is safe: before the insert is sent, and between attempts that certainly stored nothing (the
// connection was refused: a ClickHouse outage). After an attempt that may have been stored unheard
// (a timeout, a reset), the rows stay, so the retry keeps its deduplication token; if every row of
// the insert was revoked, the insert is given up instead of retried.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import {
  describeClickHouseError,
  insertCertainlyNotStored,
  isTransientClickHouseError,
} from '../../common/clients/clickhouse-errors.ts';
import { errorFields, type Logger } from '../../common/logger.ts';
import { writerFlushDuration, writerFlushRows } from '../../common/metrics/registry.ts';
import { BatchRevokedError, batchSignal } from './batch-fence.ts';
import { insertDedupToken } from './insert-token.ts';

export type Row = Record<string, unknown>;

export interface WriteResult {
  /** Rows ClickHouse refused, with its error; every other row of the write is stored. */
  rejected: { row: Row; error: string }[];
}

interface Waiter {
  rows: Row[];
  resolve: (result: WriteResult) => void;
  reject: (error: unknown) => void;
  revoked?: boolean;
}

interface Pending {
  rows: Row[];
  waiters: Waiter[];
  timer?: NodeJS.Timeout;
  quietTimer?: NodeJS.Timeout;
  /** Handed to an insert: rows of revoked writes are no longer removed from `rows` but listed here. */
  flushed?: boolean;
  revoked: Set<Row>;
}

export interface WriterOptions {
  table: string;
  /** The table's columns (common/warehouse/ modules), all named in every insert. */
  columns: readonly string[];
  maxRows: number;
  maxDelayMs: number;
  /** Flush once no rows arrived for this long (≤ maxDelayMs; default: maxDelayMs, i.e. off)… */
  quietMs?: number;
  /** …if at least this many rows are pending (default 1): a trickle still waits for maxDelayMs, so
   * light load does not turn into many tiny inserts (each one a part in every target table). */
  quietMinRows?: number;
  logger: Logger;
}

export class WriterClosedError extends Error {}

/**
 * Tries of an insert failing with an error not known to be transient before its rows are bisected
 * (so a fluke does not split a good insert). The halves get one try each: the failure has repeated.
 */
export const REFUSED_ATTEMPTS = 3;

export function createClickHouseWriter(client: ClickHouseClient, options: WriterOptions) {
  let pending: Pending | undefined;
  let inFlight = Promise.resolve();
  let closed = false;
  let abandoned = false;
  const stats = { rows: 0, inserts: 0, retries: 0, rejected: 0, revoked: 0 };

  /**
   * Inserts once, retrying transient errors for as long as it runs; throws any other error once it
   * happened `attempts` times (the rows are then bisected). Rows of revoked writes are left out
   * while nothing of this insert can have been stored yet.
   */
  async function insertWithRetry(batch: Pending, allRows: Row[], attempts: number): Promise<void> {
    let refusals = 0;
    let rows = allRows;
    let settings = settingsFor(rows);
    /** An attempt failed in a way that may have stored it: the rows must not change any more. */
    let mayBeStored = false;
    for (let attempt = 0; ; attempt++) {
      if (batch.revoked.size && !mayBeStored) {
        const left = rows.filter((row) => !batch.revoked.has(row));
        if (left.length === 0) return; // every write of it was revoked: nothing to store
        if (left.length !== rows.length) [rows, settings] = [left, settingsFor(left)];
      } else if (batch.revoked.size && rows.every((row) => batch.revoked.has(row))) {
        // Nobody waits for these rows any more; retrying would only make a doubtful insert certain.
        options.logger.warn('insert given up: every write in it was revoked', {
          table: options.table,
          rows: rows.length,
        });
        return;
      }
      try {
        await client.insert({
          table: options.table,
          values: rows,
          format: 'JSONEachRow',
          columns: options.columns as never,
          clickhouse_settings: settings,
        });
        stats.rows += rows.length;
        stats.inserts++;
        return;
      } catch (error) {
        if (!insertCertainlyNotStored(error)) mayBeStored = true;
        const transient = isTransientClickHouseError(error);
        if (!transient && ++refusals >= attempts) throw error;
        // Shutting down with ClickHouse unreachable: give up; nothing is committed, so it replays.
        if (abandoned) throw new WriterClosedError(`writer for ${options.table} abandoned`);
        stats.retries++;
        const delay = Math.min(200 * 2 ** attempt, 5_000);
        options.logger.warn(
          transient ? 'insert failed, retrying' : 'insert refused, trying again before bisecting',
          {
            table: options.table,
            rows: rows.length,
            attempt,
            delay_ms: delay,
            ...errorFields(error),
            error: describeClickHouseError(error),
          },
        );
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** Same rows, same token: see insert-token.ts. Rows without a Kafka position are sent without one. */
  function settingsFor(rows: Row[]): ClickHouseSettings {
    const token = insertDedupToken(options.table, rows);
    // `deduplicate_insert` (26.x) overrides the client's default 'disable' (common/clients/clickhouse.ts).
    return token
      ? { ...({ deduplicate_insert: 'enable' } as ClickHouseSettings), insert_deduplication_token: token }
      : {};
  }

  /** Stores what ClickHouse accepts; bisects a refused insert to find the refused rows. */
  async function insertIsolating(
    batch: Pending,
    rows: Row[],
    rejected: WriteResult['rejected'],
    attempts = REFUSED_ATTEMPTS,
  ): Promise<void> {
    try {
      await insertWithRetry(batch, rows, attempts);
    } catch (error) {
      if (error instanceof WriterClosedError) throw error;
      const message = describeClickHouseError(error);
      if (rows.length === 1) {
        stats.rejected++;
        rejected.push({ row: rows[0]!, error: message.slice(0, 2_000) });
        return;
      }
      options.logger.warn('insert refused; bisecting to isolate the bad rows', {
        table: options.table,
        rows: rows.length,
        error: message.slice(0, 300),
      });
      const half = Math.ceil(rows.length / 2);
      await insertIsolating(batch, rows.slice(0, half), rejected, 1);
      await insertIsolating(batch, rows.slice(half), rejected, 1);
    }
  }

  function flush(): void {
    const batch = pending;
    if (!batch) return;
    pending = undefined;
    batch.flushed = true;
    clearTimeout(batch.timer);
    clearTimeout(batch.quietTimer);
    // Inserts run one after another, so rows land in the order their offsets were read.
    inFlight = inFlight.then(async () => {
      const rejected: WriteResult['rejected'] = [];
      const labels = { table: options.table };
      writerFlushRows.observe(labels, batch.rows.length);
      const timer = writerFlushDuration.startTimer(labels);
      try {
        await insertIsolating(batch, batch.rows, rejected);
      } catch (error) {
        timer({ outcome: 'abandoned' });
        for (const waiter of batch.waiters) waiter.reject(error);
        return;
      }
      timer({ outcome: rejected.length ? 'partly_refused' : 'stored' });
      const refused = new Map(rejected.map((r) => [r.row, r.error]));
      for (const waiter of batch.waiters) {
        const mine = refused.size
          ? waiter.rows.filter((row) => refused.has(row)).map((row) => ({ row, error: refused.get(row)! }))
          : [];
        waiter.resolve({ rejected: mine });
      }
    });
  }

  /** A write's batch was revoked: it rejects now; its rows leave the insert (see insertWithRetry). */
  function revoke(batch: Pending, waiter: Waiter, error: Error): void {
    waiter.revoked = true;
    waiter.reject(error);
    stats.revoked += waiter.rows.length;
    if (batch.flushed) {
      for (const row of waiter.rows) batch.revoked.add(row);
      return;
    }
    // Still gathering rows: take them out now.
    const mine = new Set(waiter.rows);
    batch.rows = batch.rows.filter((row) => !mine.has(row));
    batch.waiters = batch.waiters.filter((w) => w !== waiter);
    if (batch.rows.length === 0 && pending === batch) {
      clearTimeout(batch.timer);
      clearTimeout(batch.quietTimer);
      pending = undefined;
    }
  }

  return {
    table: options.table,
    stats,
    /**
     * Resolves once `rows` are stored (except the refused ones it returns); rejects on shutdown, and
     * at once when `signal` (default: the revocation signal of the Kafka batch the caller runs for,
     * batch-fence.ts) aborts: the rows are then left out of the insert unless it may already be stored.
     */
    write(rows: Row[], signal: AbortSignal | undefined = batchSignal()): Promise<WriteResult> {
      if (rows.length === 0) return Promise.resolve({ rejected: [] });
      if (closed) return Promise.reject(new WriterClosedError(`writer for ${options.table} is closed`));
      if (signal?.aborted) return Promise.reject(revocationOf(signal));
      return new Promise<WriteResult>((resolve, reject) => {
        if (!pending) {
          pending = { rows: [], waiters: [], revoked: new Set() };
          pending.timer = setTimeout(flush, options.maxDelayMs);
        }
        const batch = pending;
        for (const row of rows) batch.rows.push(row);
        const waiter: Waiter = { rows, resolve, reject };
        if (signal) {
          const onAbort = () => revoke(batch, waiter, revocationOf(signal));
          signal.addEventListener('abort', onAbort, { once: true });
          const settle = () => signal.removeEventListener('abort', onAbort);
          waiter.resolve = (result) => (settle(), resolve(result));
          waiter.reject = (error) => (settle(), reject(error));
        }
        batch.waiters.push(waiter);
        if (pending.rows.length >= options.maxRows) flush();
        else if (
          options.quietMs !== undefined &&
          options.quietMs < options.maxDelayMs &&
          pending.rows.length >= (options.quietMinRows ?? 1)
        ) {
          clearTimeout(pending.quietTimer);
          pending.quietTimer = setTimeout(flush, options.quietMs);
        }
      });
    },
    /** Flushes what is buffered and waits for every insert (up to `timeoutMs`); later writes fail. */
    async drain(timeoutMs = 20_000): Promise<void> {
      flush();
      closed = true;
      const timer = setTimeout(() => (abandoned = true), timeoutMs);
      try {
        await inFlight;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function revocationOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new BatchRevokedError('the batch was revoked');
}

export type ClickHouseWriter = ReturnType<typeof createClickHouseWriter>;
