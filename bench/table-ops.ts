// TRUNCATE and OPTIMIZE … FINAL of the benchmark's seeding, on one server or on every shard: on a
// sharded database (CLICKHOUSE_NODES) a table's data is in `<table>_local` on each server, and its
// Distributed table neither truncates nor merges them.
import type { ClickHouseClient } from '@clickhouse/client';
import { localName } from '../infra/clickhouse/sharding.ts';

export interface TableOps {
  truncate(table: string): Promise<void>;
  optimize(table: string): Promise<void>;
}

export function tableOps(ch: ClickHouseClient, shards: ClickHouseClient[] = []): TableOps {
  const each = async (query: string, table: string) => {
    if (shards.length < 2) return void (await ch.command({ query, query_params: { table } }));
    for (const shard of shards) await shard.command({ query, query_params: { table: localName(table) } });
  };
  return {
    truncate: (table) => each('TRUNCATE TABLE {table:Identifier}', table),
    optimize: (table) => each('OPTIMIZE TABLE {table:Identifier} FINAL', table),
  };
}
