// The cluster form of every migration statement (infra/clickhouse/topology.ts): what the migrator
// runs on each node of a sharded (local) or replicated (production) cluster.
import { describe, expect, it } from 'vitest';
import { readMigrations, splitStatements } from '../../infra/clickhouse/migrate.ts';
import { placements } from '../../infra/clickhouse/sharding.ts';
import { clusterStatements, toLocalTables } from '../../infra/clickhouse/topology.ts';

const layout = { cluster: 'prod', database: 'rls', replicated: true };
const statements = readMigrations().flatMap((m) => splitStatements(m.sql));
const forms = statements.map((statement) => ({ statement, cluster: clusterStatements(statement, layout) }));
const all = forms.flatMap((f) => f.cluster);

describe('cluster form of the migrations', () => {
  it('happy: every table the migrations create has a placement, and every statement a cluster form', () => {
    const created = statements
      .map((s) => /^CREATE TABLE IF NOT EXISTS (\w+)/.exec(s)?.[1])
      .filter((name): name is string => Boolean(name));
    expect(created.length).toBeGreaterThan(20);
    for (const name of created) expect(placements[name], name).toBeDefined();
  });

  it('happy: sharded tables become Replicated <name>_local with {shard}/{replica} plus a Distributed <name>', () => {
    const listings = forms.find((f) => /^CREATE TABLE IF NOT EXISTS listings\b/.test(f.statement))!.cluster;
    expect(listings).toHaveLength(2);
    expect(listings[0]).toMatch(/^CREATE TABLE IF NOT EXISTS listings_local\b/);
    expect(listings[0]).toContain(
      "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/rls/listings_local', '{replica}', version)",
    );
    expect(listings[1]).toBe(
      "CREATE TABLE IF NOT EXISTS listings AS listings_local ENGINE = Distributed('prod', 'rls', 'listings_local', cityHash64(listing_id))",
    );
    // Every MergeTree of the cluster form is replicated; nothing keeps a plain engine.
    for (const statement of all.filter((s) => /ENGINE = \w*MergeTree/.test(s)))
      expect(statement).toMatch(/ENGINE = Replicated\w*MergeTree\('\/clickhouse\/tables\/(\{shard\}|all)\//);
    const stats = all.find((s) =>
      s.startsWith('CREATE TABLE IF NOT EXISTS neighbourhood_quarter_stats_local'),
    )!;
    expect(stats).toContain("'{replica}', (listings, price_tzs_sum, views))");
  });

  it('happy: dimension tables stay whole on every node; views and backfills read the local tables', () => {
    const locations = forms.find((f) => /^CREATE TABLE IF NOT EXISTS locations\b/.test(f.statement))!.cluster;
    expect(locations).toHaveLength(1);
    expect(locations[0]).toContain(
      "ReplicatedReplacingMergeTree('/clickhouse/tables/all/rls/locations', '{replica}', version)",
    );
    expect(
      forms.find((f) => f.statement.includes('CREATE VIEW IF NOT EXISTS v_locations'))!.cluster,
    ).toHaveLength(1);
    const mv = all.find((s) => s.startsWith('CREATE MATERIALIZED VIEW IF NOT EXISTS mv_listing_lookup'))!;
    expect(mv).toContain('TO listing_lookup_local');
    expect(mv).toContain('FROM listings_local');
    const current = forms.find((f) =>
      f.statement.startsWith('CREATE OR REPLACE VIEW v_current_listings'),
    )!.cluster;
    expect(current[0]).toMatch(/^CREATE OR REPLACE VIEW v_current_listings_local AS/);
    expect(current[0]).toContain('FROM listings_local AS l FINAL');
    expect(current[0]).toContain('FROM listing_states_local FINAL');
    expect(current[1]).toBe(
      "CREATE OR REPLACE TABLE v_current_listings AS v_current_listings_local ENGINE = Distributed('prod', 'rls', 'v_current_listings_local')",
    );
    for (const insert of all.filter((s) => s.startsWith('INSERT INTO')))
      expect(insert).toMatch(/^INSERT INTO \w+_local\b/);
  });

  it('happy: column changes reach the local and the Distributed table, settings only the local one', () => {
    expect(clusterStatements('ALTER TABLE listings ADD COLUMN x UInt8', layout)).toEqual([
      'ALTER TABLE listings_local ADD COLUMN x UInt8',
      'ALTER TABLE listings ADD COLUMN x UInt8',
    ]);
    expect(
      clusterStatements(
        'ALTER TABLE listings MODIFY SETTING non_replicated_deduplication_window = 1000',
        layout,
      ),
    ).toEqual(['ALTER TABLE listings_local MODIFY SETTING non_replicated_deduplication_window = 1000']);
  });

  it("happy: a view fed by another view's target reads its _local table; a dropped view keeps its name", () => {
    const stock = all.find((s) =>
      s.startsWith('CREATE MATERIALIZED VIEW IF NOT EXISTS mv_account_area_stock_from_flows'),
    )!;
    expect(stock).toContain('TO account_area_stock_local');
    expect(stock).toContain('FROM account_quarter_flows_local');
    expect(clusterStatements('DROP VIEW IF EXISTS mv_account_area_stock_from_listings', layout)).toEqual([
      'DROP VIEW IF EXISTS mv_account_area_stock_from_listings',
    ]);
    expect(() => clusterStatements('DROP VIEW IF EXISTS v_current_listings', layout)).toThrow(
      /only materialized views/,
    );
  });

  it('edge: only table positions are renamed (a column named like a table stays)', () => {
    expect(toLocalTables('SELECT sum(listings) AS listings FROM neighbourhood_quarter_stats')).toBe(
      'SELECT sum(listings) AS listings FROM neighbourhood_quarter_stats_local',
    );
  });

  it('error: a table without a placement, or a statement without a cluster form, is refused', () => {
    expect(() =>
      clusterStatements('CREATE TABLE IF NOT EXISTS mystery (a UInt8) ENGINE = MergeTree ORDER BY a', layout),
    ).toThrow(/no placement/);
    expect(() => clusterStatements('DROP TABLE listings', layout)).toThrow(/no cluster form/);
  });
});
