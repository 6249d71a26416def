// Rolls the Redis usage counters of recent days up into ClickHouse (api_key_usage_daily, migration
// 0020), so history outlives the Redis TTLs and data engineers can query it. Idempotent: every run
// writes the absolute values of the day again with a newer `version`; v_api_key_usage_daily keeps
// the latest. Yesterday is rolled up too, so the last minutes of a day are never lost.
//
// The day's dirty set (the hashes of the keys used that day) is REDIS_GLOBAL_PARTS parts: every part
// is read. A key's record and counters share its slot; each key's are read as single commands
// sent together, which a Redis Cluster routes to their masters.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Redis } from 'ioredis';
import { keyStoreKeys } from '../../common/auth/key-store.ts';
import { toRecord } from '../../common/auth/key-record.ts';
import { bucketsOf, dirtyKeysOfDay, usageFields, usageKeys } from '../../common/usage/keys.ts';
import { apiKeyUsageTable, type ApiKeyUsageRow } from '../../common/warehouse/api-key-usage.ts';
import { insertRows } from '../../common/warehouse/table.ts';

export interface RollupDeps {
  redis: Redis;
  clickhouse: ClickHouseClient;
  prefix: string;
  /** REDIS_GLOBAL_PARTS. */
  parts: number;
}

/** One rollup run (one worker of the cluster runs each minute's: stream/jobs/usage-rollup.ts); returns the rows written. */
export async function rollupUsage(deps: RollupDeps, now = new Date()): Promise<number> {
  const days = [bucketsOf(new Date(now.getTime() - 24 * 3600 * 1000)).day, bucketsOf(now).day];
  const rows: ApiKeyUsageRow[] = [];
  for (const day of days) rows.push(...(await rowsOfDay(deps, day, now)));
  await insertRows(deps.clickhouse, apiKeyUsageTable, rows);
  return rows.length;
}

async function rowsOfDay(deps: RollupDeps, day: string, now: Date): Promise<ApiKeyUsageRow[]> {
  const { redis, prefix } = deps;
  const perPart = await Promise.all(
    dirtyKeysOfDay(prefix, day, deps.parts).map((part) => redis.smembers(part)),
  );
  const hashes = [...new Set(perPart.flat())];
  const records = keyStoreKeys(prefix);
  const found = await Promise.all(
    hashes.map((hash) =>
      Promise.all([redis.hgetall(records.byHash(hash)), redis.hgetall(usageKeys(prefix, hash).day(day))]),
    ),
  );
  const version = String(now.getTime());
  const rolledUpAt = now.toISOString().slice(0, 19).replace('T', ' ');
  const rows: ApiKeyUsageRow[] = [];
  for (const [fields, counters] of found) {
    if (!fields.id) continue; // key deleted from Redis: nothing to attribute
    const key = toRecord(fields, now);
    const row = (metric: string, endpoint: string, value: number): ApiKeyUsageRow => ({
      day,
      account_id: key.account_id,
      key_id: key.id,
      mode: key.mode,
      tier: key.tier,
      metric,
      endpoint,
      value,
      version,
      rolled_up_at: rolledUpAt,
    });
    for (const [field, raw] of Object.entries(counters)) {
      const value = Number(raw);
      if (!Number.isSafeInteger(value) || value < 0) continue;
      if (field.startsWith(usageFields.endpointPrefix)) {
        rows.push(row('requests_by_endpoint', field.slice(usageFields.endpointPrefix.length), value));
      } else if (Object.values(usageFields).includes(field as never)) {
        rows.push(row(field, '', value));
      }
    }
  }
  return rows;
}
