// The table modules of common/warehouse/ (what the stream, the API and the fixtures insert by) name
// exactly the columns the migrations created, in table order: a migration that adds, drops or
// reorders a column without its module fails here, not in production.
import { describe, expect, it } from 'vitest';
import { warehouseTables } from '../../common/warehouse/index.ts';
import { env, testClickHouse } from '../support/api.ts';

describe('warehouse table modules', () => {
  it('happy: every module lists the columns of its table, in order', async () => {
    const result = await testClickHouse().query({
      query: `SELECT table, groupArray(name) AS columns
              FROM (SELECT table, name FROM system.columns
                    WHERE database = {database:String} AND default_kind NOT IN ('MATERIALIZED', 'ALIAS')
                    ORDER BY table, position)
              GROUP BY table`,
      query_params: { database: env.CLICKHOUSE_DATABASE },
      format: 'JSONEachRow',
    });
    const actual = new Map(
      (await result.json<{ table: string; columns: string[] }>()).map((row) => [row.table, row.columns]),
    );
    for (const table of warehouseTables)
      expect([...table.columns], table.name).toEqual(actual.get(table.name));
  });
});
