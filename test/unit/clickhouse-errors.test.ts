// Which ClickHouse failures are transient (the APIs answer 503, the writer waits) and which are
// refusals of the rows (the only ones the writer may quarantine rows for): two allow-lists
// (common/clients/clickhouse-errors.ts); and when a failed insert certainly stored nothing.
import { parseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import {
  insertCertainlyNotStored,
  isRowRefusal,
  isTransientClickHouseError,
} from '../../common/clients/clickhouse.ts';
import {
  aborted26,
  loneSurrogate26,
  systemError,
  unreachableInsertError,
} from '../support/clickhouse-failures.ts';

describe('isTransientClickHouseError (allow-list)', () => {
  it('happy: the connection, timeouts and try-again server codes are transient', async () => {
    const unreachable = await unreachableInsertError();
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
      aborted26(),
      new Error('Code: 1001. DB::Exception: The server is shutting down. (STD_EXCEPTION)'),
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

describe('isRowRefusal (allow-list of data codes)', () => {
  it('happy: parse, type and constraint refusals, and an insert over too many partitions, are the rows', () => {
    for (const error of [
      parseError(loneSurrogate26),
      new Error('Code: 25, e.displayText() = DB::Exception: Cannot parse escape sequence (version 18.16.1)'),
      parseError(
        "Code: 27. DB::Exception: Cannot parse input: expected '\"' before: 'x': (at row 1). (CANNOT_PARSE_INPUT_ASSERTION_FAILED) (version 26.7.2.1)",
      ),
      parseError(
        'Code: 252. DB::Exception: Too many partitions for single INSERT block (more than 100). (TOO_MANY_PARTS) (version 26.7.2.1)',
      ),
      parseError(
        'Code: 469. DB::Exception: Constraint `price` for table x is violated. (VIOLATED_CONSTRAINT)',
      ),
    ])
      expect([String(error), isRowRefusal(error)]).toEqual([String(error), true]);
  });

  it('error: a dying server, transient codes, codes nobody classified and errors without a code are not the rows', async () => {
    for (const error of [
      aborted26(),
      // A data code from a server that says it is going down is still the server's state.
      new Error('Code: 27. DB::Exception: The server is shutting down due to a fatal error.'),
      parseError('Code: 33. DB::Exception: Cannot read all data. (CANNOT_READ_ALL_DATA)'),
      parseError('Code: 1000. DB::Exception: Something new. (POCO_EXCEPTION) (version 26.7.2.1)'),
      parseError('Code: 202. DB::Exception: Too many simultaneous queries. (TOO_MANY_SIMULTANEOUS_QUERIES)'),
      await unreachableInsertError(),
      new TypeError('Do not know how to serialize a BigInt'),
      new Error('unexpected'),
    ])
      expect([String(error), isRowRefusal(error)]).toEqual([String(error), false]);
  });
});

describe('insertCertainlyNotStored', () => {
  it('security: only a refused connection or a refusal at the start of the query means nothing was stored', async () => {
    const unreachable = await unreachableInsertError();
    expect(insertCertainlyNotStored(unreachable)).toBe(true);
    expect(
      insertCertainlyNotStored(
        parseError(
          'Code: 202. DB::Exception: Too many simultaneous queries. (TOO_MANY_SIMULTANEOUS_QUERIES)',
        ),
      ),
    ).toBe(true);
    // Sent, outcome unknown: the server may have stored it.
    for (const error of [
      systemError('ECONNRESET', 'socket hang up'),
      new Error('Timeout error.'),
      parseError('Code: 252. DB::Exception: Too many parts (3000). (TOO_MANY_PARTS)'),
      parseError(loneSurrogate26),
    ])
      expect([String(error), insertCertainlyNotStored(error)]).toEqual([String(error), false]);
  });
});
