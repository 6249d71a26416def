// The cluster form of a migration statement. The migrations are written for one server; on a
// cluster (the local stack's two shards, or a production cluster) the runner applies each
// statement's cluster form on every node instead:
// - CREATE TABLE t (sharded or aggregate, sharding.ts) → t_local with the statement's columns and
//   engine (Replicated*MergeTree with {shard}/{replica} on a replicated cluster), and t as a
//   Distributed table over every shard's t_local, so readers and writers keep the name t;
// - CREATE TABLE of a dimension table (every shard) → unchanged (Replicated* with one path for
//   all nodes on a replicated cluster);
// - materialized views and backfill INSERT … SELECT → the same statement over the _local tables:
//   each shard's views turn its own inserts into its own aggregates;
// - CREATE [OR REPLACE] VIEW v over sharded tables → v_local over the _local tables (a listing's
//   rows meet on their shard: the joins and FINAL of the view run there) and v as a Distributed
//   table over v_local; a view over dimension tables only stays as it is;
// - ALTER TABLE t → on t_local, and column changes also on the Distributed t;
// - DROP VIEW of a materialized view → unchanged (a view has its one name on every node).
import { localName, placementOf, placements } from './sharding.ts';

export interface ClusterLayout {
  /** Cluster name in the servers' remote_servers. */
  cluster: string;
  database: string;
  /** Production: Replicated*MergeTree engines (Keeper/ZooKeeper paths with {shard}, {replica}). */
  replicated: boolean;
}

const identifier = '([A-Za-z_][A-Za-z0-9_]*)';

const isDistributed = (table: string): boolean =>
  table in placements && placementOf(table).kind !== 'everyShard';

/** Table references after FROM, JOIN, INTO and TO, renamed to their _local tables. */
export function toLocalTables(sql: string): string {
  return sql.replace(
    new RegExp(`\\b(FROM|JOIN|INTO|TO)(\\s+)${identifier}\\b`, 'gi'),
    (match, word, space, name) => (isDistributed(name) ? `${word}${space}${localName(name)}` : match),
  );
}

function referencesDistributed(sql: string): boolean {
  return [...sql.matchAll(new RegExp(`\\b(?:FROM|JOIN)\\s+${identifier}\\b`, 'gi'))].some((m) =>
    isDistributed(m[1]!),
  );
}

/** `ENGINE = XMergeTree[(args)]` → `ENGINE = ReplicatedXMergeTree('path', '{replica}'[, args])`. */
function replicatedEngine(statement: string, zooPath: string): string {
  const match = /ENGINE\s*=\s*([A-Za-z]*MergeTree)\b/.exec(statement);
  if (!match) throw new Error(`no MergeTree engine to replicate in: ${statement.slice(0, 80)}`);
  let at = match.index + match[0].length;
  let args = '';
  if (statement[at] === '(') {
    let depth = 0;
    const start = at;
    for (; at < statement.length; at++) {
      if (statement[at] === '(') depth++;
      else if (statement[at] === ')' && --depth === 0) break;
    }
    args = statement.slice(start + 1, at).trim();
    at++;
  }
  const replicated = `Replicated${match[1]}('${zooPath}', '{replica}'${args ? `, ${args}` : ''})`;
  return `${statement.slice(0, match.index)}ENGINE = ${replicated}${statement.slice(at)}`;
}

function distributedTable(
  layout: ClusterLayout,
  name: string,
  source: string,
  key?: string,
  replace = false,
) {
  const create = replace ? 'CREATE OR REPLACE TABLE' : 'CREATE TABLE IF NOT EXISTS';
  const keyArgument = key ? `, ${key}` : '';
  return `${create} ${name} AS ${source} ENGINE = Distributed('${layout.cluster}', '${layout.database}', '${source}'${keyArgument})`;
}

/** The statements that replace `statement` on each node of a cluster. */
export function clusterStatements(statement: string, layout: ClusterLayout): string[] {
  const text = statement.trim();

  const table = new RegExp(`^CREATE TABLE (IF NOT EXISTS )?${identifier}\\b`, 'i').exec(text);
  if (table) {
    const name = table[2]!;
    const placement = placementOf(name);
    if (placement.kind === 'everyShard') {
      return [
        layout.replicated
          ? replicatedEngine(text, `/clickhouse/tables/all/${layout.database}/${name}`)
          : text,
      ];
    }
    const local = localName(name);
    let create = text.replace(table[0], `CREATE TABLE ${table[1] ?? ''}${local}`);
    if (layout.replicated)
      create = replicatedEngine(create, `/clickhouse/tables/{shard}/${layout.database}/${local}`);
    return [
      create,
      distributedTable(layout, name, local, placement.kind === 'sharded' ? placement.key : undefined),
    ];
  }

  if (/^CREATE MATERIALIZED VIEW\b/i.test(text)) return [toLocalTables(text)];

  const drop = new RegExp(`^DROP VIEW (IF EXISTS )?${identifier}$`, 'i').exec(text);
  if (drop) {
    if (!/^mv_/.test(drop[2]!))
      throw new Error(`only materialized views (mv_*) are dropped by name on every node: ${text}`);
    return [text];
  }

  const view = new RegExp(`^CREATE (OR REPLACE )?VIEW (IF NOT EXISTS )?${identifier}\\s+AS\\b`, 'i').exec(
    text,
  );
  if (view) {
    if (!referencesDistributed(text)) return [text];
    const name = view[3]!;
    const local = localName(name);
    const create = toLocalTables(
      text.replace(view[0], `CREATE ${view[1] ?? ''}VIEW ${view[2] ?? ''}${local} AS`),
    );
    return [create, distributedTable(layout, name, local, undefined, Boolean(view[1]))];
  }

  if (/^INSERT INTO\b/i.test(text)) return [toLocalTables(text)];

  const alter = new RegExp(`^ALTER TABLE ${identifier}\\s+`, 'i').exec(text);
  if (alter) {
    const name = alter[1]!;
    if (!isDistributed(name)) return [text];
    const onLocal = text.replace(alter[0], `ALTER TABLE ${localName(name)} `);
    // The Distributed table mirrors the columns; settings and TTL belong to the storage alone.
    const columnChange = /^\s*(ADD|DROP|MODIFY|RENAME|COMMENT)\s+COLUMN\b/i.test(text.slice(alter[0].length));
    return columnChange ? [onLocal, text] : [onLocal];
  }

  throw new Error(`no cluster form for the statement: ${text.slice(0, 80)}`);
}
