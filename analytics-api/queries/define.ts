// A named analytics query: zod-validated parameters go in, zod-validated rows come out. ClickHouse
// 18.16 has no server-side parameters, so `sql` may only render values that the params schema has
// already reduced to enum members, numbers or dates (see sqlLiterals below).
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { isTransientClickHouseError } from '../../common/clients/clickhouse.ts';
import { dependencyUnavailable } from '../../common/errors.ts';

/** No analytics query may run longer than this (ClickHouse aborts it; the client gets a 503). */
const MAX_EXECUTION_SECONDS = 10;

export interface NamedQuery<P extends z.ZodType, R extends z.ZodType> {
  name: string;
  run(client: ClickHouseClient, params: z.input<P>): Promise<{ rows: z.output<R>[]; totals?: z.output<R> }>;
  /** The SQL for validated params (exposed for tests and EXPLAIN-style debugging). */
  sql(params: z.output<P>): string;
}

export function defineQuery<P extends z.ZodType, R extends z.ZodType>(spec: {
  name: string;
  params: P;
  row: R;
  sql: (params: z.output<P>) => string;
  /** WITH TOTALS queries: the totals row is returned beside the rows. */
  totals?: boolean;
  /**
   * Rows as arrays in SELECT order (`row` is then a z.tuple) with 64-bit integers unquoted: about
   * half the bytes and no per-row object for large results (the heatmap's thousands of cells).
   * Only for results whose integers stay below 2^53 (counts); send ids as strings or halves.
   */
  compact?: boolean;
}): NamedQuery<P, R> {
  return {
    name: spec.name,
    sql: spec.sql,
    async run(client, input) {
      const params = spec.params.parse(input); // a bug in the caller, not bad user input: throws
      const query = `/* ${spec.name} */ ${spec.sql(params)}`;
      let body: { data: unknown[]; totals?: unknown };
      try {
        const result = await client.query({
          query,
          format: spec.compact ? 'JSONCompact' : 'JSON',
          clickhouse_settings: {
            max_execution_time: MAX_EXECUTION_SECONDS,
            ...(spec.compact ? { output_format_json_quote_64bit_integers: 0 } : {}),
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

/** Zod building blocks whose output is safe to render into SQL as is. */
export const sqlSafe = {
  flag: z.boolean().transform((value) => (value ? 1 : 0)),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  uint64: z
    .bigint()
    .min(0n)
    .max(2n ** 64n - 1n),
};

/** ClickHouse renders NaN (an empty quantile) as null in JSON; both mean "no value". */
export const nullableNumber = z
  .union([z.number(), z.string(), z.null()])
  .transform((value) => (value === null ? null : Number(value)))
  .refine((value) => value === null || Number.isFinite(value) || Number.isNaN(value))
  .transform((value) => (value === null || Number.isNaN(value) ? null : value));
export const count = z.coerce.number().int().min(0);
