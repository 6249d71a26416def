// Batched ClickHouse writer: rows from all partitions join one pending insert, flushed when it
// reaches `maxRows`, when no rows arrived for `quietMs` while at least `quietMinRows` are pending
// (the partitions of a Kafka fetch have all handed in their rows: waiting longer only delays their
// commits and the next fetch), or when it is `maxDelayMs` old (a trickle). Inserts run one at a
// time; a flush due while one runs waits for it and takes the rows that arrive meanwhile (group
// commit), so a busy writer makes fewer, larger inserts. Callers await the flush that holds their
// rows, and only then commit their Kafka offsets. Only a refusal of the rows themselves (an
// allow-list of data codes: common/clients/clickhouse-errors.ts) may be a row's doing (a poison row
// would otherwise stall every insert behind it, inserts being serial): such an insert is tried
// REFUSED_ATTEMPTS times and, once the server answers a ping after the last refusal, bisected down to
// the refused rows, which are handed back to their caller (for quarantine) while every other row is
// stored. Every other failure (the connection, a timeout, a server shutting down, a code nobody
// classified) is retried with capped backoff and never gives up while running, so an outage pauses
// consumption instead of costing accepted rows.
//
// Fencing (docs/stream.md "Effectively-once design"): a write made for a Kafka batch
// carries that batch's fence (batch-fence.ts), which the writer tells when an insert holding the
// batch's rows is sent and how it ended. When the batch is revoked before anything of it may be
// stored, the fence drops its writes: they reject, and their rows leave the pending insert, or the
// insert being retried (its attempts so far certainly stored nothing: a refused connection, i.e. a
// ClickHouse outage). Otherwise the writes complete as usual (the batch is not committed anyway).
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import {
  describeClickHouseError,
  insertCertainlyNotStored,
  isRowRefusal,
} from '../../common/clients/clickhouse-errors.ts';
import { errorFields, type Logger } from '../../common/logger.ts';
import { writerFlushDuration, writerFlushRows } from '../../common/metrics/registry.ts';
import { columnList, type WarehouseTable } from '../../common/warehouse/table.ts';
import type { BatchFence } from './batch-fence.ts';
import { insertBody } from './insert-format.ts';
import { insertDedupToken } from './insert-token.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export interface WriteResult<Row extends object> {
  /** Rows ClickHouse refused, with its error; every other row of the write is stored. */
  rejected: { row: Row; error: string }[];
}

interface Waiter<Row extends object> {
  rows: Row[];
  resolve: (result: WriteResult<Row>) => void;
  reject: (error: unknown) => void;
}

interface Pending<Row extends object> {
  rows: Row[];
  waiters: Waiter<Row>[];
  timer?: NodeJS.Timeout;
  quietTimer?: NodeJS.Timeout;
  /** Handed to an insert: rows of dropped writes are no longer removed from `rows` but listed here. */
  flushed?: boolean;
  /** Its flush came while an insert was running: it goes when that insert ends, with what came meanwhile. */
  due?: boolean;
  dropped: Set<Row>;
  /** The fence of each row written for a Kafka batch. */
  fences: Map<Row, BatchFence>;
}

export interface WriterOptions<Row extends object> {
  /** The table's module (common/warehouse/): its name, its columns (all named in every insert) and
   * the type of its rows, which is the type `write` takes. */
  table: WarehouseTable<Row>;
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
 * Every writer insert: the materialized views of the table (eight on `listings`) are fed in
 * parallel threads instead of one after another, so an insert is stored sooner, and so are the rows
 * waiting for it (inserts are serial). Under the black box's load this cut the insert from flush to
 * stored from 252–320 to 195–261 ms and freshness p95 from 1.55–1.87 to 1.08–1.47 s, in every one of
 * 4 alternated pairs (docs/decisions/0011-pipelined-consumers-and-group-commit.md).
 */
export const INSERT_SETTINGS: ClickHouseSettings = { parallel_view_processing: 1 };

/**
 * Tries of an insert refused for its rows before they are bisected (so a fluke does not split a good
 * insert). The halves get one try each: the refusal has repeated.
 */
export const REFUSED_ATTEMPTS = 3;

export function createClickHouseWriter<Row extends object>(
  client: ClickHouseClient,
  options: WriterOptions<Row>,
) {
  const table = options.table.name;
  const columns = columnList(options.table);
  let pending: Pending<Row> | undefined;
  let inFlight = Promise.resolve();
  /** Inserts handed to `inFlight` and not finished. */
  let inserting = 0;
  let closed = false;
  let abandoned = false;
  const stats = { rows: 0, inserts: 0, retries: 0, rejected: 0, dropped: 0 };

  /**
   * True when the server answers: a refusal seen while it is going down (a fatal signal, a restart)
   * is the server's state, not the rows', so rows are only bisected once it answers again.
   */
  async function serverAnswers(): Promise<boolean> {
    const ping = await client.ping().catch((error: unknown) => ({ success: false as const, error }));
    return ping.success;
  }

  /**
   * Inserts once, retrying for as long as it runs; throws only a refusal of the rows, once it
   * happened `attempts` times and the server answers after it (the rows are then bisected). Rows of
   * dropped writes are left out as long as no attempt of this insert may have been stored (its token
   * must not change after that).
   */
  async function insertWithRetry(batch: Pending<Row>, allRows: Row[], attempts: number): Promise<void> {
    let refusals = 0;
    let rows = allRows;
    let settings = settingsFor(rows);
    /** An attempt failed in a way that may have stored it: the rows must not change any more. */
    let mayBeStored = false;
    for (let attempt = 0; ; attempt++) {
      if (batch.dropped.size && !mayBeStored) {
        const left = rows.filter((row) => !batch.dropped.has(row));
        if (left.length === 0) return; // every write of it was dropped: nothing to store
        if (left.length !== rows.length) [rows, settings] = [left, settingsFor(left)];
      }
      const fences = fencesOf(batch, rows);
      for (const fence of fences) fence.attemptStarted();
      try {
        await client.insert({
          table,
          ...insertBody(rows, columns),
          columns,
          clickhouse_settings: settings,
        });
        stats.rows += rows.length;
        stats.inserts++;
        for (const fence of fences) fence.attemptEnded(true);
        return;
      } catch (error) {
        if (!insertCertainlyNotStored(error)) mayBeStored = true;
        // May drop writes of revoked batches (their rows leave the next attempt, above).
        for (const fence of fences) fence.attemptEnded(mayBeStored);
        const refused = isRowRefusal(error);
        if (refused && ++refusals >= attempts) {
          if (await serverAnswers()) throw error;
          refusals = attempts - 1; // not answering: wait, then one more try decides
        }
        // Shutting down with ClickHouse unreachable: give up; nothing is committed, so it replays.
        if (abandoned) throw new WriterClosedError(`writer for ${table} abandoned`);
        stats.retries++;
        const delay = Math.min(200 * 2 ** attempt, 5_000);
        options.logger.warn(
          refused ? 'insert refused, trying again before bisecting' : 'insert failed, retrying',
          {
            table,
            rows: rows.length,
            attempt,
            delay_ms: delay,
            ...errorFields(error),
            error: describeClickHouseError(error),
          },
        );
        await sleep(delay);
      }
    }
  }

  /** The fences of the batches `rows` were written for. */
  function fencesOf(batch: Pending<Row>, rows: Row[]): Set<BatchFence> {
    const fences = new Set<BatchFence>();
    if (batch.fences.size)
      for (const row of rows) {
        const fence = batch.fences.get(row);
        if (fence) fences.add(fence);
      }
    return fences;
  }

  /** Same rows, same token: see insert-token.ts. Rows without a Kafka position are sent without one. */
  function settingsFor(rows: Row[]): ClickHouseSettings {
    const token = insertDedupToken(table, rows);
    // `deduplicate_insert` (26.x) overrides the client's default 'disable' (common/clients/clickhouse.ts).
    return token
      ? {
          ...INSERT_SETTINGS,
          ...({ deduplicate_insert: 'enable' } as ClickHouseSettings),
          insert_deduplication_token: token,
        }
      : INSERT_SETTINGS;
  }

  /** Stores what ClickHouse accepts; bisects a refused insert to find the refused rows. */
  async function insertIsolating(
    batch: Pending<Row>,
    rows: Row[],
    rejected: WriteResult<Row>['rejected'],
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
        table,
        rows: rows.length,
        error: message.slice(0, 300),
      });
      const half = Math.ceil(rows.length / 2);
      await insertIsolating(batch, rows.slice(0, half), rejected, 1);
      await insertIsolating(batch, rows.slice(half), rejected, 1);
    }
  }

  /**
   * Hands the pending rows to an insert. Inserts run one after another, so rows land in the order
   * their offsets were read; a batch due while one runs could not start sooner anyway, so it stays
   * open and takes the rows that arrive until then (group commit: under load, fewer and larger
   * inserts, whose cost is mostly per insert — docs/performance.md). `now` closes it at once
   * (`maxRows`, drain).
   */
  function flush(now = false): void {
    const batch = pending;
    if (!batch) return;
    clearTimeout(batch.timer);
    clearTimeout(batch.quietTimer);
    if (inserting > 0 && !now) {
      batch.due = true;
      return;
    }
    pending = undefined;
    batch.flushed = true;
    inserting++;
    inFlight = inFlight.then(async () => {
      try {
        await insertBatch(batch);
      } finally {
        inserting--;
        if (inserting === 0 && pending?.due) flush();
      }
    });
  }

  /** Inserts `batch` and settles its waiters: stored, partly refused, or failed. */
  async function insertBatch(batch: Pending<Row>): Promise<void> {
    const rejected: WriteResult<Row>['rejected'] = [];
    const labels = { table };
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
  }

  /** The fence dropped a write (its batch was revoked before any of it was stored): out it goes. */
  function drop(batch: Pending<Row>, waiter: Waiter<Row>, error: Error): void {
    waiter.reject(error);
    stats.dropped += waiter.rows.length;
    if (batch.flushed) {
      for (const row of waiter.rows) batch.dropped.add(row);
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
    table,
    stats,
    /**
     * Resolves once `rows` are stored (except the refused ones it returns); rejects on shutdown, and
     * when `fence` (the Kafka batch's the rows are written for, from its context: batch-fence.ts;
     * null outside a batch) drops the write because its batch was revoked before anything of it
     * was stored.
     */
    write(rows: Row[], fence: BatchFence | null): Promise<WriteResult<Row>> {
      if (rows.length === 0) return Promise.resolve({ rejected: [] });
      if (closed) return Promise.reject(new WriterClosedError(`writer for ${table} is closed`));
      if (fence?.refusesWrites) return Promise.reject(fence.reason());
      return new Promise<WriteResult<Row>>((resolve, reject) => {
        if (!pending) {
          pending = { rows: [], waiters: [], dropped: new Set(), fences: new Map() };
          pending.timer = setTimeout(flush, options.maxDelayMs);
        }
        const batch = pending;
        for (const row of rows) batch.rows.push(row);
        const waiter: Waiter<Row> = { rows, resolve, reject };
        if (fence) {
          for (const row of rows) batch.fences.set(row, fence);
          const release = fence.hold(() => drop(batch, waiter, fence.reason()));
          waiter.resolve = (result) => (release(), resolve(result));
          waiter.reject = (error) => (release(), reject(error));
        }
        batch.waiters.push(waiter);
        if (pending.rows.length >= options.maxRows) flush(true);
        else if (
          !pending.due &&
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
      flush(true);
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

/** A writer of the rows of one table (`Row`: its module's row type). */
export type ClickHouseWriter<Row extends object> = ReturnType<typeof createClickHouseWriter<Row>>;
