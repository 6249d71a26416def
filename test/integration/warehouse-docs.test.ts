// docs/warehouse.md is checked against the running warehouse: every example ("Examples") runs as
// the read-only `analyst` with its parameters bound, and the documented columns ("Tables and
// views") are exactly the columns of each table and view (a column added or dropped without the
// page fails here).
import fs from 'node:fs';
import path from 'node:path';
import { createClient } from '@clickhouse/client';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/local/settings.mjs';
import { env, testClickHouse } from '../support/api.ts';

const page = fs.readFileSync(path.join(repoRoot, 'docs/warehouse.md'), 'utf8');
/** The text of one `## heading` of the page, up to the next `## `. */
function sectionOf(heading: string): string {
  const start = page.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/warehouse.md has no "## ${heading}" section`);
  const end = page.indexOf('\n## ', start + 4);
  return page.slice(start, end < 0 ? undefined : end);
}
const tables = sectionOf('Tables and views');
const examplesSection = sectionOf('Examples');

/** Table rows `| objects | one row per | columns |` → object name → documented columns, in order. */
function documentedColumns(): Map<string, string[]> {
  const documented = new Map<string, string[]>();
  for (const line of tables.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 5 || !cells[1]!.startsWith('`')) continue;
    const objects = [...cells[1]!.matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1]!);
    // "common columns; `a` only: extra columns" → the extras belong to that object alone.
    const [common, ...extras] = cells[3]!.split(/;\s*/);
    const names = (text: string) => [...text.matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1]!);
    for (const object of objects) documented.set(object, names(common!));
    for (const extra of extras) {
      const owner = /^`([a-z_0-9]+)` only:/.exec(extra)?.[1];
      if (!owner || !documented.has(owner)) throw new Error(`docs/warehouse.md: cannot read "${extra}"`);
      documented.get(owner)!.push(...names(extra.slice(extra.indexOf(':') + 1)));
    }
  }
  return documented;
}

/** Each ```sql block: its statement and the values of its `-- params:` line. */
function examples(): { sql: string; params: Record<string, string> }[] {
  return [...examplesSection.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => {
    const sql = match[1]!.trim().replace(/;$/, '');
    const line = /^-- params: (.*)$/m.exec(sql)?.[1] ?? '';
    const params = Object.fromEntries(
      line
        .split(/\s+/)
        .filter(Boolean)
        .map((pair) => pair.split('=') as [string, string]),
    );
    return { sql, params };
  });
}

const analyst = createClient({
  url: env.CLICKHOUSE_URL,
  username: 'analyst',
  password: process.env.CLICKHOUSE_ANALYST_PASSWORD || 'analyst',
  database: env.CLICKHOUSE_DATABASE,
  log: { level: 127 as never },
});
afterAll(() => analyst.close());

describe('warehouse documentation (docs/warehouse.md)', () => {
  it('happy: every documented column exists, and every column is documented', async () => {
    const documented = documentedColumns();
    expect(documented.size).toBeGreaterThan(10);
    const result = await testClickHouse().query({
      query: `SELECT table, groupArray(name) AS columns
              FROM (SELECT table, name FROM system.columns
                    WHERE database = {database:String} ORDER BY table, position)
              GROUP BY table`,
      query_params: { database: env.CLICKHOUSE_DATABASE },
      format: 'JSONEachRow',
    });
    const actual = new Map(
      (await result.json<{ table: string; columns: string[] }>()).map((row) => [row.table, row.columns]),
    );
    // test_*: scratch tables other test files create and drop while this one runs.
    const internal = (table: string) =>
      table === 'schema_migrations' || table.startsWith('mv_') || table.startsWith('test_');
    const undocumented = [...actual.keys()].filter((table) => !internal(table) && !documented.has(table));
    expect(undocumented, 'tables missing from docs/warehouse.md').toEqual([]);
    for (const [object, columns] of documented) {
      expect(actual.has(object), `docs/warehouse.md documents ${object}, which does not exist`).toBe(true);
      expect([...columns].sort(), `columns of ${object}`).toEqual([...actual.get(object)!].sort());
    }
  });

  it('happy: every example of the page runs as analyst with its parameters', async () => {
    const all = examples();
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(
      all.some((e) => /\bOVER\s*\(/i.test(e.sql)),
      'a window function',
    ).toBe(true);
    expect(
      all.some((e) => /^WITH\s+\w+\s+AS\s*\(/im.test(e.sql)),
      'a CTE',
    ).toBe(true);
    expect(
      all.some((e) => /\{\w+:\w+\}/.test(e.sql)),
      'a parameterised query',
    ).toBe(true);
    for (const example of all) {
      const result = await analyst.query({
        query: example.sql,
        query_params: example.params,
        format: 'JSON',
      });
      const body = (await result.json()) as { meta: unknown[] };
      expect(body.meta.length, example.sql.split('\n')[0]).toBeGreaterThan(0);
    }
  });

  it('security: analyst cannot write, cannot read outside rls*, and a wrong password is refused', async () => {
    await expect(
      analyst.command({ query: 'CREATE TABLE analyst_probe (a UInt8) ENGINE = Memory' }),
    ).rejects.toThrow(/Not enough privileges|ACCESS_DENIED|readonly/i);
    await expect(analyst.command({ query: 'TRUNCATE TABLE listings' })).rejects.toThrow(
      /Not enough privileges|ACCESS_DENIED|readonly/i,
    );
    await expect(
      analyst.query({ query: 'SELECT 1', clickhouse_settings: { max_execution_time: 3600 } }),
    ).rejects.toThrow(/max_execution_time/);
    // 0 means "unlimited" for these settings: the constraints' minimum refuses it.
    for (const setting of ['max_execution_time', 'max_memory_usage', 'max_result_bytes']) {
      await expect(
        analyst.query({ query: 'SELECT 1', clickhouse_settings: { [setting]: 0 } }),
        setting,
      ).rejects.toThrow(new RegExp(setting));
    }
    const limits = await analyst.query({
      query: "SELECT getSetting('max_result_bytes') AS bytes, getSetting('max_memory_usage') AS memory",
      format: 'JSONEachRow',
    });
    expect(await limits.json()).toEqual([{ bytes: 500_000_000, memory: 2_000_000_000 }]);
    const wrong = createClient({
      url: env.CLICKHOUSE_URL,
      username: 'analyst',
      password: 'not-the-password',
      log: { level: 127 as never },
    });
    await expect(wrong.query({ query: 'SELECT 1' })).rejects.toThrow(
      /Authentication failed|AUTHENTICATION_FAILED/,
    );
    await wrong.close();
  });
});
