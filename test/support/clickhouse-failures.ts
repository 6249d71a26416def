// ClickHouse failures as the client reports them, for the tests of their classification and of the
// stream writer (captured from the server where they say so).
import { parseError } from '@clickhouse/client';
import { createClickHouse } from '../../common/clients/clickhouse.ts';

// What ClickHouse 26.7 answers to a JSONEachRow insert of {"s":"\ud800"} (captured from the server).
export const loneSurrogate26 =
  'Code: 25. DB::Exception: Cannot parse escape sequence: missing second part of surrogate pair. ' +
  'In JSON input formats you can disable setting input_format_json_throw_on_bad_escape_sequence to ' +
  'save bad escape sequences as is: (while reading the value of key s): (at row 1)\n' +
  ': While executing ParallelParsingBlockInputFormat. (CANNOT_PARSE_ESCAPE_SEQUENCE) (version 26.7.2.1)';
export const systemError = (code: string, message: string) => Object.assign(new Error(message), { code });
// What an insert gets from a clickhouse-local that received a fatal signal (seen under SIGABRT).
export const aborted26 = () =>
  parseError(
    'Code: 236. DB::Exception: The server is shutting down due to a fatal error. (ABORTED) (version 26.7.3.1)',
  );

/** What the real client throws when an insert cannot connect (nothing listens on port 1). */
export const unreachableInsertError = () =>
  createClickHouse({
    url: 'http://127.0.0.1:1',
    username: 'default',
    password: '',
    database: 'x',
  })
    .insert({ table: 't', values: [{ a: 1 }], format: 'JSONEachRow' })
    .catch((e: unknown) => e);
