// How the stream writer and the APIs treat a ClickHouse failure. Two allow-lists, each of errors
// known for what they are:
// - transient: the connection, a timeout, or a server condition that clears without anyone touching
//   the data (the APIs answer 503 and the caller retries);
// - row refusals: the server read the rows and refused them for what they hold (a parse error, a
//   type or constraint violation). Only these may be blamed on the rows: the stream writer tries such
//   an insert a bounded number of times, then isolates the refused rows for quarantine
//   (stream/sink/clickhouse-writer.ts), and only once the server answers again.
// Everything else (a server dying mid-insert, a code nobody classified) is retried by the writer
// until it passes: an error nobody classified must never cost an accepted listing.
// Reference for the lists: ClickHouse's src/Common/ErrorCodes.cpp (names checked with
// errorCodeToName() on 26.7) and the retriable codes of ClickHouse's own Kafka Connect sink (3, 107,
// 159, 164, 202, 203, 209, 210, 241, 242, 252, 285, 319, 425, 999) without 107 FILE_DOESNT_EXIST
// (a missing file is not a condition that clears by waiting), plus the shutdown, overload, lock and
// disk codes below.

/** Transient ClickHouse error codes, each with why waiting (not changing the rows) fixes it. */
const transientCodes = new Map<number, string>([
  // The request body ended early: the connection was cut mid-insert. Our bodies are whole JSON,
  // so the rows are not the cause.
  [3, 'UNEXPECTED_END_OF_FILE'],
  [159, 'TIMEOUT_EXCEEDED'], // ran over a time limit or waited too long for a lock: server busy
  [164, 'READONLY'], // the server or user is in read-only mode (maintenance): no row causes it
  [201, 'QUOTA_EXCEEDED'], // the quota's interval resets
  // A server dying (a fatal signal, a shutdown) aborts what it runs: "The server is shutting down".
  [236, 'ABORTED'],
  [202, 'TOO_MANY_SIMULTANEOUS_QUERIES'], // max_concurrent_queries reached
  [203, 'NO_FREE_CONNECTION'], // connection pool exhausted
  [209, 'SOCKET_TIMEOUT'],
  [210, 'NETWORK_ERROR'],
  [241, 'MEMORY_LIMIT_EXCEEDED'], // server memory pressure; one insert is ≤ SINK_MAX_ROWS bounded rows
  [242, 'TABLE_IS_READ_ONLY'], // replicated table lost its Keeper session
  [243, 'NOT_ENOUGH_SPACE'], // disk full: pause until an operator frees space, never drop rows
  [252, 'TOO_MANY_PARTS'],
  // A Distributed query or insert could not reach a shard (every replica of it refused): the shard
  // is down, the rows are not the cause. Retrying pauses until it is back, never a partial answer.
  [279, 'ALL_CONNECTION_TRIES_FAILED'], // merges are behind (except "too many partitions", see below)
  [285, 'TOO_FEW_LIVE_REPLICAS'], // quorum insert without enough replicas up
  [319, 'UNKNOWN_STATUS_OF_INSERT'], // quorum insert: outcome unknown, ask again
  [394, 'QUERY_WAS_CANCELLED'], // a shutting-down server cancels running queries
  [425, 'SYSTEM_ERROR'], // an OS call failed (e.g. too many open files)
  [439, 'CANNOT_SCHEDULE_TASK'], // thread pool full
  [473, 'DEADLOCK_AVOIDED'], // table lock wait timed out (concurrent ALTER/DROP)
  [745, 'SERVER_OVERLOADED'], // admission control (newer servers)
  [999, 'KEEPER_EXCEPTION'], // coordination service hiccup
  // Not about the rows either: the table, a column or the credentials are missing or wrong (a
  // deployment whose migration has not run yet, a rotated password). Every row would fail the same
  // way, so bisecting would quarantine all of them; retrying pauses consumption, like an outage,
  // until an operator fixes it.
  [16, 'NO_SUCH_COLUMN_IN_TABLE'],
  [60, 'UNKNOWN_TABLE'],
  [81, 'UNKNOWN_DATABASE'],
  [192, 'UNKNOWN_USER'],
  [193, 'WRONG_PASSWORD'],
  [194, 'REQUIRED_PASSWORD'],
  [195, 'IP_ADDRESS_NOT_ALLOWED'],
  [291, 'DATABASE_ACCESS_DENIED'],
  [497, 'ACCESS_DENIED'],
  [516, 'AUTHENTICATION_FAILED'],
]);
const transientNames = new Set(transientCodes.values());

/**
 * Codes of a server that read the rows and refused what they hold: parsing, types, values out of
 * range, constraints and `throwIf` checks of the materialized views. The only failures the writer
 * may blame on the rows. Left out on purpose: codes of a body cut short (32
 * ATTEMPT_TO_READ_AFTER_EOF, 33 CANNOT_READ_ALL_DATA), which a dying connection gives too, and
 * codes of our own statements or schema (syntax, unknown identifiers), which no row causes.
 */
const rowRefusalCodes = new Map<number, string>([
  [6, 'CANNOT_PARSE_TEXT'],
  [19, 'SIZE_OF_FIXED_STRING_DOESNT_MATCH'],
  [25, 'CANNOT_PARSE_ESCAPE_SEQUENCE'],
  [26, 'CANNOT_PARSE_QUOTED_STRING'],
  [27, 'CANNOT_PARSE_INPUT_ASSERTION_FAILED'],
  [38, 'CANNOT_PARSE_DATE'],
  [41, 'CANNOT_PARSE_DATETIME'],
  [53, 'TYPE_MISMATCH'],
  [69, 'ARGUMENT_OUT_OF_BOUND'],
  [70, 'CANNOT_CONVERT_TYPE'],
  [72, 'CANNOT_PARSE_NUMBER'],
  [117, 'INCORRECT_DATA'],
  [128, 'TOO_LARGE_ARRAY_SIZE'],
  [130, 'CANNOT_READ_ARRAY_FROM_TEXT'],
  [131, 'TOO_LARGE_STRING_SIZE'],
  [190, 'SIZES_OF_ARRAYS_DONT_MATCH'],
  [321, 'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE'],
  [349, 'CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN'],
  [395, 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO'],
  [407, 'DECIMAL_OVERFLOW'],
  [469, 'VIOLATED_CONSTRAINT'],
]);
const rowRefusalNames = new Set(rowRefusalCodes.values());

/** What a dying server writes when it has no code to give (or gives one outside the lists). */
const shuttingDown = /server is shutting down|shutting down due to a fatal error/i;

/** Node's errors of the connection itself (`error.code`): ClickHouse unreachable or gone mid-request. */
const transientSystemCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN', // DNS temporarily failed
  'ENOTFOUND', // DNS has no answer (yet): a wrong host name pauses, it does not quarantine
]);

/**
 * The client's own failures without a code (@clickhouse/client 1.x, connection/socket_pool):
 * its request_timeout ("Timeout error."), a socket closed under it, an aborted request.
 */
const transientMessage = /^(Timeout error\.|socket hang up|The user aborted a request\.)/;

/** TOO_MANY_PARTS also reports an insert spanning too many partitions: that is the rows' doing. */
const tooManyPartitions = /too many partitions for (a )?single insert block/i;

/**
 * The ClickHouse error code of a failure: the client's `.code` (a numeric string on servers that
 * name their errors), else `Code: NN` in the message (18.16 wrote "Code: 25, e.displayText() = …").
 */
export function clickhouseErrorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && Number.isInteger(code)) return code;
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code);
  const match = /Code: (\d+)/.exec(messageOf(error));
  return match ? Number(match[1]) : undefined;
}

/** Transient = ClickHouse unreachable, busy, over a limit that clears, or not usable yet (above). */
export function isTransientClickHouseError(error: unknown): boolean {
  const code = clickhouseErrorCode(error);
  if (shuttingDown.test(messageOf(error))) return true;
  if (code !== undefined) {
    if (code === 252 && tooManyPartitions.test(messageOf(error))) return false;
    return transientCodes.has(code);
  }
  const type = (error as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && transientNames.has(type)) return true;
  return isConnectionFailure(error);
}

/**
 * A refusal of the rows themselves (the allow-list above, and an insert spanning too many
 * partitions): the only failure the writer may bisect and quarantine rows for. Never true of a
 * server that is shutting down, whatever code it attaches.
 */
export function isRowRefusal(error: unknown): boolean {
  const message = messageOf(error);
  if (shuttingDown.test(message)) return false;
  const code = clickhouseErrorCode(error);
  if (code !== undefined)
    return rowRefusalCodes.has(code) || (code === 252 && tooManyPartitions.test(message));
  const type = (error as { type?: unknown } | null)?.type;
  return typeof type === 'string' && rowRefusalNames.has(type);
}

/**
 * The failure as one line for logs and the quarantine: the client's ClickHouseError keeps only the
 * server's text in `message`, so its code and name are put back in front ("Code: 25
 * (CANNOT_PARSE_ESCAPE_SEQUENCE). Cannot parse escape sequence: …").
 */
export function describeClickHouseError(error: unknown): string {
  const message = messageOf(error);
  const code = clickhouseErrorCode(error);
  if (code === undefined || /Code: \d+/.test(message)) return message;
  const type = (error as { type?: unknown } | null)?.type;
  return `Code: ${code}${typeof type === 'string' ? ` (${type})` : ''}. ${message.trim()}`;
}

/** Connection errors that mean no byte of the request reached a server. */
const notConnectedCodes = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * Server errors raised when an INSERT starts, before it reads any row (access, the table and its
 * columns, admission control), so no block of it can have been written.
 */
const refusedAtStartCodes = new Set([16, 60, 81, 164, 192, 193, 194, 195, 201, 202, 291, 497, 516, 745]);

/**
 * True when the failed insert certainly stored nothing: the connection was never made, or the
 * server refused the query before reading data. Anything else (a timeout, a reset connection, an
 * error mid-insert) may have stored some or all of its blocks unheard, so a retry must send the
 * same rows with the same deduplication token (stream/sink/clickhouse-writer.ts).
 */
export function insertCertainlyNotStored(error: unknown): boolean {
  const code = clickhouseErrorCode(error);
  if (code !== undefined) return refusedAtStartCodes.has(code);
  for (let e: unknown = error, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const systemCode = (e as { code?: unknown }).code;
    if (typeof systemCode === 'string' && notConnectedCodes.has(systemCode)) return true;
  }
  return false;
}

function isConnectionFailure(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && transientSystemCodes.has(code)) return true;
    if ((e as { name?: unknown }).name === 'AbortError') return true;
    if (transientMessage.test(messageOf(e))) return true;
  }
  return false;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
