// The writer's error handling without a server (the classification itself:
// clickhouse-errors.test.ts): a refusal of the rows is tried a bounded number of times, then
// bisected once the server answers, so the refused rows come back (for quarantine) while every other
// row is stored; any other failure — a server dying mid-insert, a code nobody classified — is retried
// until it passes and never costs a row.
import { parseError, type ClickHouseClient } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { BatchFence, BatchRevokedError } from '../../stream/sink/batch-fence.ts';
import type { QuarantineRow } from '../../common/warehouse/quarantine.ts';
import { defineTable } from '../../common/warehouse/table.ts';
import { viewEventsTable, type ViewEventRow } from '../../common/warehouse/view-events.ts';
import { createClickHouseWriter } from '../../stream/sink/clickhouse-writer.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { aborted26, loneSurrogate26, systemError } from '../support/clickhouse-failures.ts';

/** Rows of a table of these tests: `bad` marks the rows the stand-in below refuses. */
type Row = { n: number; bad: boolean };
const testTable = defineTable<Row>()('listings', ['n', 'bad']);

/**
 * A ClickHouse stand-in: fails an insert with what `failure` returns, stores the others; its ping
 * answers while `answering()` is true.
 */
function fakeClickHouse(failure: (rows: Row[], call: number) => unknown, answering = () => true) {
  const inserts: number[] = [];
  const stored: Row[] = [];
  const client = {
    async ping() {
      return answering() ? { success: true } : { success: false, error: new Error('connect ECONNREFUSED') };
    },
    async insert(insert: { values: unknown[]; columns: string[]; format: string }) {
      // The writer sends each row as an array in the insert's column order: back to rows.
      const values =
        insert.format === 'JSONCompactEachRow'
          ? insert.values.map(
              (v) => Object.fromEntries(insert.columns.map((c, i) => [c, (v as unknown[])[i]])) as Row,
            )
          : (insert.values as Row[]);
      inserts.push(values.length);
      const error = failure(values, inserts.length);
      if (error) throw error;
      stored.push(...values);
    },
  } as unknown as ClickHouseClient;
  return { client, inserts, stored };
}

/** Retries 10 ms apart, doubling to 50: the same attempts as in production, sooner. */
const quickRetries = { first: 10, max: 50 };

const writerFor = (client: ClickHouseClient) =>
  createClickHouseWriter(client, {
    table: testTable,
    maxRows: 10_000,
    maxDelayMs: 5,
    logger: createLogger('error'),
    retryDelayMs: quickRetries,
  });

const batch = (n: number, badAt: number[]) =>
  Array.from({ length: n }, (_, i) => ({ n: i, bad: badAt.includes(i) }));

describe('writer: refusals of the rows', () => {
  it('error: the server refused the data — tried 3 times, then bisected; the refused rows return, the rest is stored', async () => {
    const fake = fakeClickHouse((rows) =>
      rows.some((r) => r.bad) ? parseError(loneSurrogate26) : undefined,
    );
    const writer = writerFor(fake.client);
    const rows = batch(16, [5, 11]);
    const result = await writer.write(rows, null);
    expect(result.rejected.map((r) => r.row)).toEqual([rows[5], rows[11]]);
    // With the code and name put back.
    expect(result.rejected[0]!.error).toMatch(
      /^Code: 25 \(CANNOT_PARSE_ESCAPE_SEQUENCE\)\. Cannot parse escape sequence: missing second part/,
    );
    expect(fake.stored.map((r) => r.n).sort((a, b) => Number(a) - Number(b))).toEqual(
      rows.filter((r) => !r.bad).map((r) => r.n),
    );
    // The whole insert three times, then each half once per halving (no retries while bisecting).
    expect(fake.inserts.slice(0, 4)).toEqual([16, 16, 16, 8]);
    expect(fake.inserts.length).toBeLessThanOrEqual(3 + 2 * 4 * 2);
    await writer.drain();
  }, 10_000);

  it('security: a refusal while the server does not answer is not bisected: retried until it answers, and nothing is quarantined', async () => {
    // The server refuses with a data code while it is going down (its ping fails), then comes back
    // and stores every row: no row may be blamed.
    let down = true;
    const fake = fakeClickHouse(
      (_, call) => (call <= 4 ? parseError(loneSurrogate26) : undefined),
      () => !down,
    );
    const writer = writerFor(fake.client);
    const rows = batch(16, []);
    const writing = writer.write(rows, null);
    await sleep(2_500); // 200 + 400 + 800 ms of backoff: 4 refusals, each judged while down
    down = false;
    const result = await writing;
    expect(result.rejected).toEqual([]);
    expect(fake.inserts.every((n) => n === 16)).toBe(true); // never bisected
    expect(fake.stored).toHaveLength(16);
    await writer.drain();
  }, 15_000);
});

describe('writer: failures that are not the rows', () => {
  it.each([
    ['a server shutting down after a fatal error (Code 236)', aborted26],
    ['an error no one classified', () => new Error('something new')],
    [
      'a body cut short',
      () => parseError('Code: 33. DB::Exception: Cannot read all data. (CANNOT_READ_ALL_DATA)'),
    ],
  ])(
    'security: %s is retried until it passes: never bisected, no row refused',
    async (_, failure) => {
      const fake = fakeClickHouse((_, call) => (call <= 4 ? failure() : undefined));
      const writer = writerFor(fake.client);
      const rows = batch(16, [5]);
      const result = await writer.write(rows, null);
      expect(result.rejected).toEqual([]);
      expect(fake.inserts).toEqual([16, 16, 16, 16, 16]);
      expect(fake.stored).toHaveLength(16);
      await writer.drain();
    },
    15_000,
  );

  it('happy: a transient failure is retried until it passes, and nothing is bisected or refused', async () => {
    const fake = fakeClickHouse((_, call) =>
      call <= 2 ? systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:8123') : undefined,
    );
    const writer = writerFor(fake.client);
    const rows = batch(10, []);
    const result = await writer.write(rows, null);
    expect(result.rejected).toEqual([]);
    expect(fake.inserts).toEqual([10, 10, 10]);
    expect(fake.stored).toHaveLength(10);
    await writer.drain();
  }, 15_000);
});

describe('writer: group commit', () => {
  /** The stand-in above, with its first insert held until `release()`. */
  function heldFirstInsert() {
    const fake = fakeClickHouse(() => undefined);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const insert = fake.client.insert.bind(fake.client);
    let calls = 0;
    fake.client.insert = (async (params: Parameters<typeof insert>[0]) => {
      const result = insert(params); // counted in `inserts` when it starts
      if (++calls === 1) await held;
      return result;
    }) as typeof insert;
    return { ...fake, release };
  }

  it('happy: rows due while an insert runs wait for it and then go in one insert, whatever their writes', async () => {
    const fake = heldFirstInsert();
    const writer = writerFor(fake.client); // flushes 5 ms after the first row
    const first = writer.write(batch(3, []), null);
    await sleep(30); // the first insert is running (held)
    const second = writer.write(batch(2, []), null);
    await sleep(30); // its 5 ms are long past: due, and kept open
    const third = writer.write(batch(4, []), null);
    await sleep(30);
    expect(fake.inserts).toEqual([3]);
    fake.release();
    await Promise.all([first, second, third]);
    expect(fake.inserts).toEqual([3, 6]);
    expect(fake.stored).toHaveLength(9);
    await writer.drain();
  });

  it('happy: maxRows still closes an insert while another runs, and drain sends what is due at once', async () => {
    const fake = heldFirstInsert();
    const writer = createClickHouseWriter(fake.client, {
      table: testTable,
      maxRows: 5,
      maxDelayMs: 5,
      logger: createLogger('error'),
    });
    const writes = [writer.write(batch(3, []), null)];
    await sleep(30); // the first insert is running (held)
    writes.push(writer.write(batch(6, []), null)); // full: closed at once, queued behind it
    writes.push(writer.write(batch(2, []), null));
    await sleep(30);
    fake.release();
    await Promise.all([...writes, writer.drain()]);
    expect(fake.inserts).toEqual([3, 6, 2]);
  });
});

describe('writer: revoked batches', () => {
  const revokable = () => {
    const controller = new AbortController();
    return {
      fence: new BatchFence(controller.signal),
      revoke: () => controller.abort(new BatchRevokedError('partition moved')),
    };
  };

  it('security: a batch revoked before its insert is sent: the write rejects at once, its rows never reach ClickHouse', async () => {
    const fake = fakeClickHouse(() => undefined);
    const writer = createClickHouseWriter(fake.client, {
      table: testTable,
      maxRows: 10_000,
      maxDelayMs: 200,
      logger: createLogger('error'),
      retryDelayMs: quickRetries,
    });
    const gone = revokable();
    const kept = batch(3, []);
    const revokedWrite = writer.write(batch(5, []), gone.fence);
    const keptWrite = writer.write(kept, null);
    gone.revoke();
    await expect(revokedWrite).rejects.toThrow(BatchRevokedError);
    await keptWrite;
    expect(fake.stored).toEqual(kept);
    await expect(writer.write(batch(1, []), gone.fence)).rejects.toThrow(BatchRevokedError); // later writes too
    await writer.drain();
  });

  it('security: during an outage (connections refused) a revoked batch leaves the insert before the next attempt', async () => {
    const gone = revokable();
    let calls = 0;
    const fake = fakeClickHouse(() => {
      calls++;
      if (calls === 1) gone.revoke(); // the rebalance arrives while ClickHouse is down
      return calls <= 2 ? systemError('ECONNREFUSED', 'connect ECONNREFUSED') : undefined;
    });
    const writer = writerFor(fake.client);
    const kept = batch(2, []).map((r) => ({ ...r, n: Number(r.n) + 100 }));
    const results = await Promise.allSettled([
      writer.write(batch(4, []), gone.fence),
      writer.write(kept, null),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(fake.inserts).toEqual([6, 2, 2]);
    expect(fake.stored).toEqual(kept);
    await writer.drain();
  }, 15_000);

  it('error: once an insert of the batch may have been stored, its writes complete, in every table (same token)', async () => {
    // A handler writing two tables (status changes and states): the first insert fails doubtfully
    // when the rebalance comes; dropping the other table's rows could leave the first stored alone.
    const gone = revokable();
    let calls = 0;
    const first = fakeClickHouse(() => {
      calls++;
      if (calls === 1) gone.revoke();
      return calls === 1 ? systemError('ECONNRESET', 'socket hang up') : undefined;
    });
    const second = fakeClickHouse(() => undefined);
    const [a, b] = [writerFor(first.client), writerFor(second.client)];
    const results = await Promise.allSettled([
      a.write(batch(4, []), gone.fence),
      a.write(batch(2, []), null),
      b.write(batch(3, []), gone.fence),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(first.inserts).toEqual([6, 6]); // the retry is the same insert: a landed first try is deduplicated
    expect(second.stored).toHaveLength(3);
    await Promise.all([a.drain(), b.drain()]);
  }, 15_000);
});

describe('writer: rows typed by their table module', () => {
  // The checks are the `@ts-expect-error` lines: tsc (npm test's type check) fails if any of these
  // writes compiled. The functions are never called: nothing is written.
  it('security: a row of another table, a wrong value or a missing column does not compile', () => {
    const writer = createClickHouseWriter(fakeClickHouse(() => undefined).client, {
      table: viewEventsTable,
      maxRows: 10_000,
      maxDelayMs: 5,
      logger: createLogger('error'),
    });
    const wrongTable = (row: QuarantineRow) =>
      // @ts-expect-error a quarantine row is not a view_events row
      writer.write([row]);
    const wrongValue = (row: ViewEventRow) =>
      // @ts-expect-error is_test is 0 or 1
      writer.write([{ ...row, is_test: 2 }]);
    const missingColumn = (row: Omit<ViewEventRow, 'city'>) =>
      // @ts-expect-error every column of the table is in the row
      writer.write([row]);
    const right = (row: ViewEventRow) => writer.write([row], null);
    expect([wrongTable, wrongValue, missingColumn, right].map((check) => typeof check)).toEqual(
      Array(4).fill('function'),
    );
  });

  it('security: a table module must list every column of its row type', () => {
    // @ts-expect-error `bad` is not listed
    const partial = defineTable<Row>()('t', ['n']);
    expect(partial.columns).toEqual(['n']);
  });
});
