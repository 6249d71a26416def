// `npm run migrate` and `npm run topics` against the test stack: one line per step, idempotent,
// non-zero with a one-line reason on failure. Each run uses its own database / topic prefix.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readMigrations } from '../../infra/clickhouse/migrate.ts';
import { topicDefinitions } from '../../common/topics.ts';
import { testClickHouse } from '../support/api.ts';
import { npmRun } from '../support/npm-run.ts';

describe('operations commands', () => {
  it('happy: npm run migrate applies every migration once, then reports each as already applied', async () => {
    const database = `rls_migrate_${randomUUID().slice(0, 8)}`;
    try {
      const first = await npmRun('migrate', { CLICKHOUSE_DATABASE: database });
      expect(first.code, first.stderr).toBe(0);
      const names = readMigrations().map((m) => m.name);
      for (const name of names) expect(first.stdout).toContain(`migrate: applied ${name}\n`);
      const second = await npmRun('migrate', { CLICKHOUSE_DATABASE: database });
      expect(second.code, second.stderr).toBe(0);
      for (const name of names) expect(second.stdout).toContain(`migrate: already applied ${name}\n`);
      expect(second.stdout).not.toContain('migrate: applied ');
      const rows = await testClickHouse().query({
        query: 'SELECT count() AS n FROM {db:Identifier}.schema_migrations',
        query_params: { db: database },
        format: 'JSONEachRow',
      });
      expect(Number((await rows.json<{ n: string }>())[0]!.n)).toBe(names.length);
    } finally {
      await testClickHouse().command({
        query: 'DROP DATABASE IF EXISTS {db:Identifier} SYNC',
        query_params: { db: database },
      });
    }
  }, 120_000);

  it('error: npm run migrate names a bad variable, and an unreachable server, in one line with exit 1', async () => {
    const bad = await npmRun('migrate', { CLICKHOUSE_URL: 'not a url' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/CLICKHOUSE_URL/);
    const down = await npmRun('migrate', { CLICKHOUSE_URL: 'http://127.0.0.1:1' });
    expect(down.code).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(/^migrate: failed: .*ECONNREFUSED/);
  }, 60_000);

  it('happy: npm run topics creates every topic with the chosen partitions, then leaves them unchanged', async () => {
    const prefix = `ops${randomUUID().slice(0, 8)}.`;
    const first = await npmRun('topics', { KAFKA_TOPIC_PREFIX: prefix, KAFKA_PARTITIONS: '2' });
    expect(first.code, first.stderr).toBe(0);
    for (const name of Object.keys(topicDefinitions))
      expect(first.stdout).toContain(
        `topics: created ${prefix}${name} (2 partitions, replication 1, min.insync.replicas 1)\n`,
      );
    const second = await npmRun('topics', { KAFKA_TOPIC_PREFIX: prefix });
    expect(second.code, second.stderr).toBe(0);
    for (const name of Object.keys(topicDefinitions))
      expect(second.stdout).toContain(`topics: exists ${prefix}${name} (2 partitions; left unchanged)\n`);
    // A replication factor the single broker cannot give fails in one line.
    const tooMany = await npmRun('topics', {
      KAFKA_TOPIC_PREFIX: `x${prefix}`,
      KAFKA_REPLICATION_FACTOR: '3',
    });
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toMatch(/^topics: failed: /);
  }, 120_000);
});
