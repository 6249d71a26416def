// Batched ClickHouse writer: rows from all partitions join one pending insert, flushed when it
// reaches `maxRows`, when no rows arrived for `quietMs` while at least `quietMinRows` are pending
// (the partitions of a Kafka fetch have all handed in their rows: waiting longer only delays their
// commits and the next fetch), or when it is `maxDelayMs` old (a trickle). Inserts run one at a
// time; a flush due while one runs waits for it and takes the rows that arrive meanwhile (group
// commit), so a busy writer makes fewer, larger inserts. Callers await the flush that holds their
// rows, and only then commit their Kafka offsets. Each insert is stored whatever it takes
// (isolating-insert.ts): an outage is retried for as long as the writer runs, so it pauses
// consumption instead of costing accepted rows, and only rows ClickHouse refuses for their content
// are handed back to their callers (for quarantine) — a poison row would otherwise stall every
// insert behind it, inserts being serial.
//
// Fencing (docs/stream.md "Effectively-once design"): a write made for a Kafka batch
// carries that batch's fence (batch-fence.ts), which the writer tells when an insert holding the
// batch's rows is sent and how it ended. When the batch is revoked before anything of it may be
// stored, the fence drops its writes: they reject, and their rows leave the pending insert, or the
// insert being retried (its attempts so far certainly stored nothing: a refused connection, i.e. a
// ClickHouse outage). Otherwise the writes complete as usual (the batch is not committed anyway).
import type { ClickHouseClient } from '@clickhouse/client';
import type { Logger } from '../../common/logger.ts';
import { columnList, type WarehouseTable } from '../../common/warehouse/table.ts';
import type { BatchFence } from './batch-fence.ts';
import {
  createIsolatingInserter,
  leaveBatch,
  WriterClosedError,
  type Pending,
  type Waiter,
  type WriteResult,
} from './isolating-insert.ts';

export {
  INSERT_SETTINGS,
  REFUSED_ATTEMPTS,
  WriterClosedError,
  type WriteResult,
} from './isolating-insert.ts';

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
  /** The pause before retrying a failed insert (default 200 ms doubling to 5 s; unit tests shorten it). */
  retryDelayMs?: { first: number; max: number };
}

export function createClickHouseWriter<Row extends object>(
  client: ClickHouseClient,
  options: WriterOptions<Row>,
) {
  const table = options.table.name;
  const stats = { rows: 0, inserts: 0, retries: 0, rejected: 0, dropped: 0 };
  const state: WriterState<Row> = {
    options,
    table,
    stats,
    inFlight: Promise.resolve(),
    inserting: 0,
    closed: false,
    abandoned: false,
    inserter: createIsolatingInserter<Row>({
      client,
      table,
      columns: columnList(options.table),
      logger: options.logger,
      stats,
      abandoned: () => state.abandoned,
      retryDelayMs: options.retryDelayMs,
    }),
  };
  return {
    table,
    stats,
    /**
     * Resolves once `rows` are stored (except the refused ones it returns); rejects on shutdown, and
     * when `fence` (the Kafka batch's the rows are written for, from its context: batch-fence.ts;
     * null outside a batch) drops the write because its batch was revoked before anything of it
     * was stored.
     */
    write: (rows: Row[], fence: BatchFence | null): Promise<WriteResult<Row>> => write(state, rows, fence),
    /** Flushes what is buffered and waits for every insert (up to `timeoutMs`); later writes fail. */
    drain: (timeoutMs = 20_000): Promise<void> => drain(state, timeoutMs),
  };
}

/** One writer's rows being gathered, its inserts, and whether it still takes writes. */
interface WriterState<Row extends object> {
  readonly options: WriterOptions<Row>;
  readonly table: string;
  readonly stats: { rows: number; inserts: number; retries: number; rejected: number; dropped: number };
  readonly inserter: ReturnType<typeof createIsolatingInserter<Row>>;
  pending?: Pending<Row>;
  inFlight: Promise<void>;
  /** Inserts handed to `inFlight` and not finished. */
  inserting: number;
  closed: boolean;
  abandoned: boolean;
}

function write<Row extends object>(
  state: WriterState<Row>,
  rows: Row[],
  fence: BatchFence | null,
): Promise<WriteResult<Row>> {
  if (rows.length === 0) return Promise.resolve({ rejected: [] });
  if (state.closed) return Promise.reject(new WriterClosedError(`writer for ${state.table} is closed`));
  if (fence?.refusesWrites) return Promise.reject(fence.reason());
  return new Promise<WriteResult<Row>>((resolve, reject) => {
    if (!state.pending) {
      state.pending = { rows: [], waiters: [], dropped: new Set(), fences: new Map() };
      state.pending.timer = setTimeout(() => flush(state), state.options.maxDelayMs);
    }
    const batch = state.pending;
    joinBatch(batch, { rows, resolve, reject }, fence, (waiter) =>
      drop(state, batch, waiter, fence!.reason()),
    );
    if (batch.rows.length >= state.options.maxRows) flush(state, true);
    else flushWhenQuiet(state, batch);
  });
}

async function drain<Row extends object>(state: WriterState<Row>, timeoutMs: number): Promise<void> {
  flush(state, true);
  state.closed = true;
  const timer = setTimeout(() => (state.abandoned = true), timeoutMs);
  try {
    await state.inFlight;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Hands the pending rows to an insert. Inserts run one after another, so rows land in the order
 * their offsets were read; a batch due while one runs could not start sooner anyway, so it stays
 * open and takes the rows that arrive until then (group commit: under load, fewer and larger
 * inserts, whose cost is mostly per insert — docs/performance.md). `now` closes it at once
 * (`maxRows`, drain).
 */
function flush<Row extends object>(state: WriterState<Row>, now = false): void {
  const batch = state.pending;
  if (!batch) return;
  clearTimeout(batch.timer);
  clearTimeout(batch.quietTimer);
  if (state.inserting > 0 && !now) {
    batch.due = true;
    return;
  }
  state.pending = undefined;
  batch.flushed = true;
  state.inserting++;
  state.inFlight = state.inFlight.then(async () => {
    try {
      await state.inserter.insertAndSettle(batch);
    } finally {
      state.inserting--;
      if (state.inserting === 0 && state.pending?.due) flush(state);
    }
  });
}

/** The fence dropped a write (its batch was revoked before any of it was stored): out it goes. */
function drop<Row extends object>(
  state: WriterState<Row>,
  batch: Pending<Row>,
  waiter: Waiter<Row>,
  error: Error,
): void {
  waiter.reject(error);
  state.stats.dropped += waiter.rows.length;
  if (leaveBatch(batch, waiter) && state.pending === batch) {
    clearTimeout(batch.timer);
    clearTimeout(batch.quietTimer);
    state.pending = undefined;
  }
}

/** A flush once no rows arrived for `quietMs`, when enough are pending (WriterOptions). */
function flushWhenQuiet<Row extends object>(state: WriterState<Row>, batch: Pending<Row>): void {
  const { quietMs, maxDelayMs, quietMinRows = 1 } = state.options;
  if (batch.due || quietMs === undefined || quietMs >= maxDelayMs || batch.rows.length < quietMinRows) return;
  clearTimeout(batch.quietTimer);
  batch.quietTimer = setTimeout(() => flush(state), quietMs);
}

/** A writer of the rows of one table (`Row`: its module's row type). */
export type ClickHouseWriter<Row extends object> = ReturnType<typeof createClickHouseWriter<Row>>;

/** Adds a write to the batch gathering rows; a fenced one leaves it (`onDrop`) if its batch is revoked. */
function joinBatch<Row extends object>(
  batch: Pending<Row>,
  waiter: Waiter<Row>,
  fence: BatchFence | null,
  onDrop: (waiter: Waiter<Row>) => void,
): void {
  for (const row of waiter.rows) batch.rows.push(row);
  if (fence) {
    for (const row of waiter.rows) batch.fences.set(row, fence);
    const release = fence.hold(() => onDrop(waiter));
    const { resolve, reject } = waiter;
    waiter.resolve = (result) => (release(), resolve(result));
    waiter.reject = (error) => (release(), reject(error));
  }
  batch.waiters.push(waiter);
}
