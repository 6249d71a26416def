// Production's replicated form of the schema (docs/scaling.md, "Replicas in production"), as far as this
// machine can take it: ZooKeeper 3.9.5 and two ClickHouse servers as two replicas of one shard
// (macros {shard}=01, {replica}=r1/r2), each given every table, view and materialized view of the
// schema in the form `npm run migrate` applies with CLICKHOUSE_CLUSTER. Every table must be created
// on both, with Replicated*MergeTree engines, and both replicas registered in ZooKeeper for each.
// What it cannot show: clickhouse-local (the library the local stack runs) opens no interserver
// port, so the replicas stay read-only: no insert, no ALTER, no fetch between them. That is why
// the tables are created in their final shape (read from a database the migrations built on one
// server) instead of by replaying the migrations' ALTERs and backfills, which need a writable
// replica.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse, queryRows } from '../../common/clients/clickhouse.ts';
import { migrate, readMigrations, splitStatements } from '../../infra/clickhouse/migrate.ts';
import { clusterStatements } from '../../infra/clickhouse/topology.ts';
import { clickhouseNodes, startClickHouse, stopClickHouse } from '../../infra/local/clickhouse.mjs';
import { readSettings } from '../../infra/local/settings.mjs';
import { startZooKeeper, stopZooKeeper } from '../../infra/local/zookeeper.mjs';

const base = readSettings({ ...process.env, CLICKHOUSE_URL: '' }, { profile: 'test' });
const stateDir = path.join(base.stateDir, 'replicated');
// Beside the stack's own servers: HTTP +20/+21, native +20/+21 (internal +30/+31), ZooKeeper +58
// (base+181 with the default ports).
const zooKeeperPort = base.clickhouse.httpPort + 58;
const replicated = {
  ...base,
  stateDir,
  logDir: path.join(stateDir, 'logs'),
  clickhouse: {
    ...base.clickhouse,
    external: '',
    httpPort: base.clickhouse.httpPort + 20,
    tcpPort: base.clickhouse.tcpPort + 20,
    shards: 2,
    extraConfig: (node: { n: number; internalTcpPort: number }) => `
  <zookeeper><node><host>127.0.0.1</host><port>${zooKeeperPort}</port></node></zookeeper>
  <macros><shard>01</shard><replica>r${node.n}</replica></macros>
  <remote_servers><prod><shard><internal_replication>true</internal_replication>
    <replica><host>127.0.0.1</host><port>${base.clickhouse.tcpPort + 30}</port></replica>
    <replica><host>127.0.0.1</host><port>${base.clickhouse.tcpPort + 31}</port></replica>
  </shard></prod></remote_servers>
`,
  },
};
const database = 'rls_replicated';
const schemaDatabase = `rls_schema_${process.pid}`;
const nodes = clickhouseNodes(replicated);

/** The schema's final shape: tables from a database the migrations built, views as the migrations define them last. */
async function finalSchema(): Promise<string[]> {
  const url = clickhouseNodes(base)[0]!.url;
  await migrate({ url, username: 'default', password: '', database: schemaDatabase });
  const client = createClickHouse({ url, username: 'default', password: '', database: schemaDatabase });
  try {
    const tables = await queryRows<{ name: string; create_table_query: string }>(
      client,
      `SELECT name, create_table_query FROM system.tables
       WHERE database = {db:String} AND engine LIKE '%MergeTree' AND name != 'schema_migrations'
       ORDER BY name`,
      { db: schemaDatabase },
    );
    const views = new Map<string, string>();
    for (const statement of readMigrations().flatMap((m) => splitStatements(m.sql))) {
      const name = /^CREATE (?:OR REPLACE )?(?:MATERIALIZED )?VIEW (?:IF NOT EXISTS )?(\w+)/.exec(
        statement,
      )?.[1];
      if (name) views.set(name, statement);
    }
    const ordered = [...views.values()].sort(
      (a, b) => Number(a.includes('MATERIALIZED')) - Number(b.includes('MATERIALIZED')),
    );
    return [...tables.map((t) => t.create_table_query.replaceAll(`${schemaDatabase}.`, '')), ...ordered];
  } finally {
    await client.command({
      query: 'DROP DATABASE IF EXISTS {db:Identifier} SYNC',
      query_params: { db: schemaDatabase },
    });
    await client.close();
  }
}

describe('replicated cluster form of the schema (ZooKeeper + two replicas)', () => {
  let expectedReplicated: string[] = [];

  beforeAll(async () => {
    await stopClickHouse(replicated); // left over by an interrupted run
    await stopZooKeeper(replicated);
    fs.rmSync(stateDir, { recursive: true, force: true }); // a fresh ZooKeeper and fresh replicas
    const schema = await finalSchema();
    const [zookeeper] = await Promise.all([
      startZooKeeper(replicated, zooKeeperPort),
      startClickHouse(replicated),
    ]);
    expect(zookeeper.startedPid).toBeGreaterThan(0);
    const layout = { cluster: 'prod', database, replicated: true };
    const statements = schema.flatMap((statement) => clusterStatements(statement, layout));
    expectedReplicated = statements
      .filter((s) => /ENGINE = Replicated/.test(s))
      .map((s) => /^CREATE TABLE (?:IF NOT EXISTS )?(\w+)/.exec(s)![1]!)
      .sort();
    for (const node of nodes) {
      const client = createClickHouse({
        url: node.url,
        username: 'default',
        password: '',
        database: 'default',
      });
      await client.command({
        query: 'CREATE DATABASE IF NOT EXISTS {db:Identifier}',
        query_params: { db: database },
      });
      await client.close();
      const target = createClickHouse({ url: node.url, username: 'default', password: '', database });
      for (const query of statements) await target.command({ query });
      await target.close();
    }
  }, 240_000);

  afterAll(async () => {
    await stopClickHouse(replicated);
    await stopZooKeeper(replicated);
  }, 120_000);

  it('every table is created on both replicas, each registered in ZooKeeper with both replicas', async () => {
    expect(expectedReplicated.length).toBeGreaterThan(20);
    expect(expectedReplicated).toContain('listings_local');
    expect(expectedReplicated).toContain('locations');
    let readOnly = 0;
    for (const node of nodes) {
      const client = createClickHouse({ url: node.url, username: 'default', password: '', database });
      const tables = await queryRows<{ name: string; engine: string }>(
        client,
        'SELECT name, engine FROM system.tables WHERE database = {db:String}',
        { db: database },
      );
      const engines = new Map(tables.map((t) => [t.name, t.engine]));
      for (const name of expectedReplicated)
        expect(engines.get(name), `${name} on ${node.name}`).toMatch(/^Replicated\w*MergeTree$/);
      for (const name of ['listings', 'view_events', 'neighbourhood_quarter_prices', 'v_current_listings'])
        expect(engines.get(name), `${name} on ${node.name}`).toBe('Distributed');
      expect(engines.get('mv_listing_lookup')).toBe('MaterializedView');

      const replicas = await queryRows<{
        table: string;
        replica_name: string;
        zookeeper_path: string;
        total_replicas: number;
        is_readonly: number;
      }>(
        client,
        `SELECT table, replica_name, zookeeper_path, total_replicas, is_readonly FROM system.replicas
         WHERE database = {db:String} ORDER BY table`,
        { db: database },
      );
      expect(replicas.map((r) => r.table)).toEqual(expectedReplicated);
      for (const replica of replicas) {
        expect(replica.replica_name).toBe(`r${node.n}`);
        expect(replica.zookeeper_path).toMatch(/^\/clickhouse\/tables\/(01|all)\/rls_replicated\//);
        // total_replicas counts the children of <zookeeper_path>/replicas in ZooKeeper: r1 and r2.
        expect(Number(replica.total_replicas), `${replica.table}: replicas registered`).toBe(2);
        readOnly += Number(replica.is_readonly);
      }
      await client.close();
    }
    console.log(
      `replicated tables: ${expectedReplicated.length} per node, 2 replicas each; read-only (no interserver port in clickhouse-local): ${readOnly} of ${2 * expectedReplicated.length}`,
    );
  });
});
