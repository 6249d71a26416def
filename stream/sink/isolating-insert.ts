// One insert of a writer's batch (clickhouse-writer.ts), stored whatever it takes: every failure is
// retried with capped backoff while the writer runs, except a refusal of the rows themselves (an
// allow-list of data codes: common/clients/clickhouse-errors.ts), which is tried a few times and,
// once the server answers a ping, bisected down to the refused rows; those are handed back to their
// writers' callers (for quarantine) while every other row is stored.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  describeClickHouseError,
  insertCertainlyNotStored,
  isRowRefusal,
} from '../../common/clients/clickhouse-errors.ts';
import { errorFields, type Logger } from '../../common/logger.ts';
import { writerFlushDuration, writerFlushRows } from '../../common/metrics/registry.ts';
import type { BatchFence } from './batch-fence.ts';
import { insertBody } from './insert-format.ts';
import { insertDedupToken } from './insert-token.ts';

export interface WriteResult<Row extends object> {
  /** Rows ClickHouse refused, with its error; every other row of the write is stored. */
  rejected: { row: Row; error: string }[];
}

export class WriterClosedError extends Error {}

/** The rows of one insert being gathered or stored, and the writes waiting for it. */
export interface Waiter<Row extends object> {
  rows: Row[];
  resolve: (result: WriteResult<Row>) => void;
  reject: (error: unknown) => void;
}

export interface Pending<Row extends object> {
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

export interface InserterDeps {
  client: ClickHouseClient;
  table: string;
  columns: [string, ...string[]];
  logger: Logger;
  stats: { rows: number; inserts: number; retries: number; rejected: number };
  /** Shutting down with ClickHouse unreachable: stop retrying (nothing is committed, so it replays). */
  abandoned: () => boolean;
  /** The pause before a retry: `first` ms, doubling up to `max` (WriterOptions.retryDelayMs). */
  retryDelayMs?: { first: number; max: number };
}

/** 200 ms doubling to 5 s: an outage costs a few inserts a minute, a blip a fifth of a second. */
export const DEFAULT_RETRY_DELAY_MS = { first: 200, max: 5_000 };

export function createIsolatingInserter<Row extends object>(deps: InserterDeps) {
  return { insertAndSettle: (batch: Pending<Row>) => insertAndSettle(deps, batch) };
}

/** Inserts `batch` and settles its waiters: stored, partly refused, or failed. */
async function insertAndSettle<Row extends object>(deps: InserterDeps, batch: Pending<Row>): Promise<void> {
  const rejected: WriteResult<Row>['rejected'] = [];
  const labels = { table: deps.table };
  writerFlushRows.observe(labels, batch.rows.length);
  const timer = writerFlushDuration.startTimer(labels);
  try {
    await insertIsolating(deps, batch, batch.rows, rejected);
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

/** Stores what ClickHouse accepts; bisects a refused insert to find the refused rows. */
async function insertIsolating<Row extends object>(
  deps: InserterDeps,
  batch: Pending<Row>,
  rows: Row[],
  rejected: WriteResult<Row>['rejected'],
  attempts = REFUSED_ATTEMPTS,
): Promise<void> {
  try {
    await insertWithRetry(deps, batch, rows, attempts);
  } catch (error) {
    if (error instanceof WriterClosedError) throw error;
    const message = describeClickHouseError(error);
    if (rows.length === 1) {
      deps.stats.rejected++;
      rejected.push({ row: rows[0]!, error: message.slice(0, 2_000) });
      return;
    }
    deps.logger.warn('insert refused; bisecting to isolate the bad rows', {
      table: deps.table,
      rows: rows.length,
      error: message.slice(0, 300),
    });
    const half = Math.ceil(rows.length / 2);
    await insertIsolating(deps, batch, rows.slice(0, half), rejected, 1);
    await insertIsolating(deps, batch, rows.slice(half), rejected, 1);
  }
}

/**
 * Inserts once, retrying for as long as it runs; throws only a refusal of the rows, once it
 * happened `attempts` times and the server answers after it (the rows are then bisected). Rows of
 * dropped writes are left out as long as no attempt of this insert may have been stored (its token
 * must not change after that).
 */
async function insertWithRetry<Row extends object>(
  deps: InserterDeps,
  batch: Pending<Row>,
  allRows: Row[],
  attempts: number,
): Promise<void> {
  const { client, table, columns, stats } = deps;
  let refusals = 0;
  let rows = allRows;
  let settings = insertSettings(table, rows);
  /** An attempt failed in a way that may have stored it: the rows must not change any more. */
  let mayBeStored = false;
  for (let attempt = 0; ; attempt++) {
    if (batch.dropped.size && !mayBeStored) {
      const left = rows.filter((row) => !batch.dropped.has(row));
      if (left.length === 0) return; // every write of it was dropped: nothing to store
      if (left.length !== rows.length) [rows, settings] = [left, insertSettings(table, left)];
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
        if (await serverAnswers(client)) throw error;
        refusals = attempts - 1; // not answering: wait, then one more try decides
      }
      // Shutting down with ClickHouse unreachable: give up; nothing is committed, so it replays.
      if (deps.abandoned()) throw new WriterClosedError(`writer for ${table} abandoned`);
      stats.retries++;
      await pauseBeforeRetry(deps, { rows: rows.length, attempt, refused, error });
    }
  }
}

/** Logs a failed attempt and waits before the next: capped doubling (InserterDeps.retryDelayMs). */
async function pauseBeforeRetry(
  deps: InserterDeps,
  failed: { rows: number; attempt: number; refused: boolean; error: unknown },
): Promise<void> {
  const { first, max } = deps.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const delay = Math.min(first * 2 ** failed.attempt, max);
  deps.logger.warn(
    failed.refused ? 'insert refused, trying again before bisecting' : 'insert failed, retrying',
    {
      table: deps.table,
      rows: failed.rows,
      attempt: failed.attempt,
      delay_ms: delay,
      ...errorFields(failed.error),
      error: describeClickHouseError(failed.error),
    },
  );
  await sleep(delay);
}

/**
 * True when the server answers: a refusal seen while it is going down (a fatal signal, a restart)
 * is the server's state, not the rows', so rows are only bisected once it answers again.
 */
async function serverAnswers(client: ClickHouseClient): Promise<boolean> {
  const ping = await client.ping().catch((error: unknown) => ({ success: false as const, error }));
  return ping.success;
}

/**
 * Takes a dropped write's rows out of `batch`: marked to be left out of its insert's next attempts
 * once flushed, removed while it still gathers rows. True when a gathering batch is left empty.
 */
export function leaveBatch<Row extends object>(batch: Pending<Row>, waiter: Waiter<Row>): boolean {
  if (batch.flushed) {
    for (const row of waiter.rows) batch.dropped.add(row);
    return false;
  }
  const mine = new Set(waiter.rows);
  batch.rows = batch.rows.filter((row) => !mine.has(row));
  batch.waiters = batch.waiters.filter((w) => w !== waiter);
  return batch.rows.length === 0;
}

/** The fences of the batches `rows` were written for. */
function fencesOf<Row extends object>(batch: Pending<Row>, rows: Row[]): Set<BatchFence> {
  const fences = new Set<BatchFence>();
  if (batch.fences.size)
    for (const row of rows) {
      const fence = batch.fences.get(row);
      if (fence) fences.add(fence);
    }
  return fences;
}

/** Same rows, same token: see insert-token.ts. Rows without a Kafka position are sent without one. */
function insertSettings(table: string, rows: object[]): ClickHouseSettings {
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
