// The writer's error handling without a server: which failures are transient (an allow-list), and
// that any other failure is tried a bounded number of times, then bisected so the refused rows come
// back (for quarantine) while every other row is stored (issue 13, "Poison pill": a row the server
// refused with a code outside the old permanent list was retried forever, stalling every tenant).
import { parseError, type ClickHouseClient } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { createClickHouse, isTransientClickHouseError } from '../../common/clients/clickhouse.ts';
import { createLogger } from '../../common/logger.ts';
import { createClickHouseWriter, type Row } from '../../stream/sink/clickhouse-writer.ts';

// What ClickHouse 26.7 answers to a JSONEachRow insert of {"s":"\ud800"} (captured from the server).
const loneSurrogate26 =
  'Code: 25. DB::Exception: Cannot parse escape sequence: missing second part of surrogate pair. ' +
  'In JSON input formats you can disable setting input_format_json_throw_on_bad_escape_sequence to ' +
  'save bad escape sequences as is: (while reading the value of key s): (at row 1)\n' +
  ': While executing ParallelParsingBlockInputFormat. (CANNOT_PARSE_ESCAPE_SEQUENCE) (version 26.7.2.1)';
const systemError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('isTransientClickHouseError (allow-list)', () => {
  it('happy: the connection, timeouts and try-again server codes are transient', async () => {
    // A real connection failure of the client (nothing listens on port 1).
    const unreachable = await createClickHouse({
      url: 'http://127.0.0.1:1',
      username: 'default',
      password: '',
      database: 'x',
    })
      .insert({ table: 't', values: [{ a: 1 }], format: 'JSONEachRow' })
      .catch((e: unknown) => e);
    for (const error of [
      unreachable,
      systemError('ECONNRESET', 'socket hang up'),
      new Error('Timeout error.'),
      parseError(
        'Code: 202. DB::Exception: Too many simultaneous queries. Maximum: 100. (TOO_MANY_SIMULTANEOUS_QUERIES) (version 26.7.2.1)',
      ),
      parseError(
        'Code: 252. DB::Exception: Too many parts (3000 with average size of 1.00 MiB) in table. Merges are processing significantly slower than inserts. (TOO_MANY_PARTS) (version 26.7.2.1)',
      ),
      parseError(
        'Code: 241. DB::Exception: Memory limit (total) exceeded: would use 3.50 GiB. (MEMORY_LIMIT_EXCEEDED) (version 26.7.2.1)',
      ),
      new Error(
        'Code: 159, e.displayText() = DB::Exception: Timeout exceeded: elapsed 10.0 seconds (version 18.16.1)',
      ),
      parseError(
        'Code: 60. DB::Exception: Table rls.listings does not exist. (UNKNOWN_TABLE) (version 26.7.2.1)',
      ),
    ]) {
      expect([String(error), isTransientClickHouseError(error)]).toEqual([String(error), true]);
    }
  });

  it('error: data refusals, unknown codes and errors without a code are not transient', () => {
    for (const error of [
      parseError(loneSurrogate26),
      new Error('Code: 25, e.displayText() = DB::Exception: Cannot parse escape sequence (version 18.16.1)'),
      parseError(
        "Code: 27. DB::Exception: Cannot parse input: expected '\"' before: 'x': (at row 1). (CANNOT_PARSE_INPUT_ASSERTION_FAILED) (version 26.7.2.1)",
      ),
      parseError(
        'Code: 252. DB::Exception: Too many partitions for single INSERT block (more than 100). (TOO_MANY_PARTS) (version 26.7.2.1)',
      ),
      parseError('Code: 1000. DB::Exception: Something new. (POCO_EXCEPTION) (version 26.7.2.1)'),
      new TypeError('Do not know how to serialize a BigInt'),
      new Error('unexpected'),
    ]) {
      expect([String(error), isTransientClickHouseError(error)]).toEqual([String(error), false]);
    }
  });
});

/** A ClickHouse stand-in: refuses any insert holding a row with `bad`, stores the others. */
function fakeClickHouse(failure: (rows: Row[], call: number) => unknown) {
  const inserts: number[] = [];
  const stored: Row[] = [];
  const client = {
    async insert({ values }: { values: Row[] }) {
      inserts.push(values.length);
      const error = failure(values, inserts.length);
      if (error) throw error;
      stored.push(...values);
    },
  } as unknown as ClickHouseClient;
  return { client, inserts, stored };
}

const writerFor = (client: ClickHouseClient) =>
  createClickHouseWriter(client, {
    table: 'listings',
    columns: ['n'],
    maxRows: 10_000,
    maxDelayMs: 5,
    logger: createLogger('error'),
  });

const batch = (n: number, badAt: number[]) =>
  Array.from({ length: n }, (_, i) => ({ n: i, bad: badAt.includes(i) }));

describe('writer: failures that are not transient', () => {
  it.each([
    [
      'the server refused the data',
      () => parseError(loneSurrogate26),
      /^Code: 25 \(CANNOT_PARSE_ESCAPE_SEQUENCE\)\. Cannot parse escape sequence: missing second part/,
    ],
    ['an error no one classified', () => new Error('something new'), /^something new$/],
  ])(
    'error: %s — tried 3 times, then bisected; the refused rows return, the rest is stored',
    async (_, refusal, reported) => {
      const fake = fakeClickHouse((rows) => (rows.some((r) => r.bad) ? refusal() : undefined));
      const writer = writerFor(fake.client);
      const rows = batch(16, [5, 11]);
      const result = await writer.write(rows);
      expect(result.rejected.map((r) => r.row)).toEqual([rows[5], rows[11]]);
      expect(result.rejected[0]!.error).toMatch(reported); // with the code and name put back
      expect(fake.stored.map((r) => r.n).sort((a, b) => Number(a) - Number(b))).toEqual(
        rows.filter((r) => !r.bad).map((r) => r.n),
      );
      // The whole insert three times, then each half once per halving (no retries while bisecting).
      expect(fake.inserts.slice(0, 4)).toEqual([16, 16, 16, 8]);
      expect(fake.inserts.length).toBeLessThanOrEqual(3 + 2 * 4 * 2);
      await writer.drain();
    },
    10_000,
  );

  it('happy: a transient failure is retried until it passes, and nothing is bisected or refused', async () => {
    const fake = fakeClickHouse((_, call) =>
      call <= 2 ? systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:8123') : undefined,
    );
    const writer = writerFor(fake.client);
    const rows = batch(10, []);
    const result = await writer.write(rows);
    expect(result.rejected).toEqual([]);
    expect(fake.inserts).toEqual([10, 10, 10]);
    expect(fake.stored).toHaveLength(10);
    await writer.drain();
  }, 15_000);
});
