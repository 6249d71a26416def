// A warehouse table as code: its name, its columns in table order and the type of a row written to
// it. One module per table in this directory (the DDL stays in infra/clickhouse/migrations/); the
// stream, the API, the analytics queries and the test fixtures import these instead of retyping
// column lists. Inserts always name their columns, so ClickHouse fills omitted ones from DEFAULT.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';

/** Any table, for code that writes rows it does not inspect (the stream's batched writer). */
export interface TableRef {
  readonly name: string;
  readonly columns: readonly string[];
}

export interface WarehouseTable<Row extends object> {
  readonly name: string;
  /** Every column a writer sends, in table order. */
  readonly columns: readonly (keyof Row & string)[];
}

/** Kafka provenance carried by the base tables (docs/warehouse.md, "Tables and views"). */
export type Provenance = {
  _topic: string;
  _partition: number;
  _offset: string;
  _item: number;
};

/** DateTime values are sent as ISO-8601 text (the client's best_effort input format parses them). */
export type DateTimeText = string;

/**
 * Declares a table whose `columns` list every key of `Row` (a missing one is a type error: the
 * argument's type becomes `never`), e.g. `defineTable<ListingRow>()('listings', [...])`.
 */
export function defineTable<Row extends object>() {
  return <const C extends readonly (keyof Row & string)[]>(
    name: string,
    columns: C & (Exclude<keyof Row, C[number]> extends never ? unknown : never),
  ): WarehouseTable<Row> => ({ name, columns });
}

/** The columns of `table` as the client's insert takes them (a non-empty list). */
export function columnList(table: TableRef): [string, ...string[]] {
  const [first, ...rest] = table.columns;
  if (first === undefined) throw new Error(`table ${table.name} has no columns`);
  return [first, ...rest];
}

/** One insert of `rows` into `table`, naming its columns. */
export async function insertRows<Row extends object>(
  client: ClickHouseClient,
  table: WarehouseTable<Row>,
  rows: readonly Row[],
  settings: ClickHouseSettings = {},
): Promise<void> {
  if (!rows.length) return;
  await client.insert({
    table: table.name,
    values: rows as Row[],
    format: 'JSONEachRow',
    columns: columnList(table),
    clickhouse_settings: settings,
  });
}
