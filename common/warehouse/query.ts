// A named warehouse query, the one way any process reads ClickHouse: zod-validated parameters go
// in, zod-validated rows come out, and the server stops a statement that runs past its cap. The SQL
// text is static: every value reaches ClickHouse as a query parameter (`{name:Type}` placeholders
// filled from `query_params`), so no input is ever part of a statement; table names come from the
// table modules beside this file.
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { isTransientClickHouseError } from '../clients/clickhouse.ts';
import { dependencyUnavailable } from '../errors.ts';

/**
 * No query runs longer than this unless it says otherwise (ClickHouse aborts it; an API client gets
 * a 503): the answer budget of a request.
 */
const MAX_EXECUTION_SECONDS = 10;

export type QueryParams = Record<string, unknown>;

export interface NamedQuery<P extends z.ZodType, R extends z.ZodType> {
  name: string;
  run(client: ClickHouseClient, params: z.input<P>): Promise<{ rows: z.output<R>[]; totals?: z.output<R> }>;
  /** The static SQL text (exposed for tests and EXPLAIN-style debugging). */
  sql: string;
  /** The `query_params` for validated params: one value per placeholder of `sql`. */
  queryParams(params: z.output<P>): QueryParams;
}

/** Names of the `{name:Type}` placeholders in `sql`. */
export function placeholderNames(sql: string): Set<string> {
  return new Set([...sql.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*):[^{}]+\}/g)].map((m) => m[1]!));
}

export function defineQuery<P extends z.ZodType, R extends z.ZodType>(spec: {
  name: string;
  params: P;
  row: R;
  /** Static SQL; values only as `{name:Type}` placeholders. */
  sql: string;
  /**
   * Maps validated params to the placeholders' values (`null` for a Nullable one left open); by
   * default the validated params themselves, when their keys are the placeholders' names.
   */
  queryParams?: (params: z.output<P>) => QueryParams;
  /** WITH TOTALS queries: the totals row is returned beside the rows. */
  totals?: boolean;
  /**
   * Rows as arrays in SELECT order (`row` is then a z.tuple) with 64-bit integers unquoted: about
   * half the bytes and no per-row object for large results (the heatmap's thousands of cells).
   * Only for results whose integers stay below 2^53 (counts); send ids as strings or halves.
   */
  compact?: boolean;
  /**
   * 64-bit integers as JSON strings, exact beyond 2^53 (unasked, the local 26.x server sends them as
   * numbers, which JSON.parse rounds): for rows written back or hashes compared bit by bit.
   */
  exactIntegers?: boolean;
  /**
   * false: the rows come uncompressed (the client asks for gzip otherwise). For a large result read
   * over loopback or a LAN, gzip on the server and gunzip here take longer than the bytes they save
   * (~6 of 21 ms for the heatmap's 4,000-cell box). A small answer's rows save nothing either and
   * gzip costs this process ~0.4–0.6 ms of CPU per statement (bench/clickhouse-round-trip.ts): the
   * statements of the answers with a latency goal (pricing, market totals) ask for none.
   */
  compressResponse?: false;
  /**
   * The cap in seconds (default MAX_EXECUTION_SECONDS): background jobs' scans may take up to the
   * client's request timeout (30 s), as an API answer may not.
   */
  maxSeconds?: number;
}): NamedQuery<P, R> {
  const placeholders = placeholderNames(spec.sql);
  const query = `/* ${spec.name} */ ${spec.sql}`;
  const toQueryParams = spec.queryParams ?? ((params: z.output<P>) => params as QueryParams);
  return {
    name: spec.name,
    sql: spec.sql,
    queryParams: toQueryParams,
    async run(client, input) {
      const params = spec.params.parse(input); // a bug in the caller, not bad user input: throws
      const queryParams = toQueryParams(params);
      // A placeholder without a value (or a value without a placeholder) is our bug: fail here as
      // one (500) rather than as a ClickHouse error.
      const given = Object.keys(queryParams).filter((key) => queryParams[key] !== undefined);
      if (given.length !== placeholders.size || !given.every((key) => placeholders.has(key))) {
        throw new Error(
          `${spec.name}: query params [${given.sort().join(', ')}] do not match placeholders [${[...placeholders].sort().join(', ')}]`,
        );
      }
      let body: { data: unknown[]; totals?: unknown };
      try {
        const result = await client.query({
          query,
          query_params: queryParams,
          format: spec.compact ? 'JSONCompact' : 'JSON',
          clickhouse_settings: {
            max_execution_time: spec.maxSeconds ?? MAX_EXECUTION_SECONDS,
            ...(spec.compact ? { output_format_json_quote_64bit_integers: 0 } : {}),
            ...(spec.exactIntegers ? { output_format_json_quote_64bit_integers: 1 } : {}),
            ...(spec.compressResponse === false ? { enable_http_compression: 0 } : {}),
          },
        });
        body = await result.json<unknown>();
      } catch (error) {
        // A bad statement is our bug (500); an unreachable or busy server is retriable (503).
        if (isTransientClickHouseError(error)) throw dependencyUnavailable('clickhouse', error);
        throw error;
      }
      return {
        rows: body.data.map((row) => spec.row.parse(row)),
        totals: spec.totals && body.totals !== undefined ? spec.row.parse(body.totals) : undefined,
      };
    },
  };
}

/** 0/1 for a UInt8 flag parameter such as `{isTest:UInt8}`. */
export const flag = (value: boolean): 0 | 1 => (value ? 1 : 0);

/** A `{…:Date}` parameter: YYYY-MM-DD (checked here, so a bad date is our bug, not a server error). */
export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** A `{…:UInt64}` value as a bigint (ids beyond 2^53); the client sends it as its decimal digits. */
export const uint64 = z
  .bigint()
  .min(0n)
  .max(2n ** 64n - 1n);

/** ClickHouse renders NaN (an empty quantile) as null in JSON; both mean "no value". */
export const nullableNumber = z
  .union([z.number(), z.string(), z.null()])
  .transform((value) => (value === null ? null : Number(value)))
  .refine((value) => value === null || Number.isFinite(value) || Number.isNaN(value))
  .transform((value) => (value === null || Number.isNaN(value) ? null : value));
export const count = z.coerce.number().int().min(0);
