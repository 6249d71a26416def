// Rolls the Redis usage counters of recent days up into ClickHouse (api_key_usage_daily, migration
// 0020), so history outlives the Redis TTLs and data engineers can query it. Idempotent: every run
// writes the absolute values of the day again with a newer `version`; v_api_key_usage_daily keeps
// the latest. Yesterday is rolled up too, so the last minutes of a day are never lost.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Redis } from 'ioredis';
import { createKeyStore } from '../auth/key-store.ts';
import { apiKeyUsageTable, type ApiKeyUsageRow } from '../warehouse/api-key-usage.ts';
import { insertRows } from '../warehouse/table.ts';
import { bucketsOf, dirtyKey, usageFields, usageKeys } from './keys.ts';

const LOCK_TTL_MS = 55_000;

export interface RollupDeps {
  redis: Redis;
  clickhouse: ClickHouseClient;
  prefix: string;
}

/**
 * One rollup run. With several stream workers, a Redis lock lets one of them run per minute;
 * returns the number of rows written, or null when another process holds the lock.
 */
export async function rollupUsage(deps: RollupDeps, now = new Date()): Promise<number | null> {
  const lock = `${deps.prefix}usage:rollup:lock`;
  if ((await deps.redis.set(lock, String(process.pid), 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') return null;
  try {
    const days = [bucketsOf(new Date(now.getTime() - 24 * 3600 * 1000)).day, bucketsOf(now).day];
    const rows: ApiKeyUsageRow[] = [];
    for (const day of days) rows.push(...(await rowsOfDay(deps, day, now)));
    await insertRows(deps.clickhouse, apiKeyUsageTable, rows);
    return rows.length;
  } finally {
    await deps.redis.del(lock);
  }
}

async function rowsOfDay(deps: RollupDeps, day: string, now: Date): Promise<ApiKeyUsageRow[]> {
  const ids = await deps.redis.smembers(dirtyKey(deps.prefix, day));
  if (!ids.length) return [];
  const keys = new Map(
    (await createKeyStore(deps.redis, deps.prefix).findByIds(ids)).map((key) => [key.id, key]),
  );
  const pipeline = deps.redis.pipeline();
  for (const id of ids) pipeline.hgetall(usageKeys(deps.prefix, id).day(day));
  const replies = (await pipeline.exec()) ?? [];
  const version = String(now.getTime());
  const rolledUpAt = now.toISOString().slice(0, 19).replace('T', ' ');
  const rows: ApiKeyUsageRow[] = [];
  ids.forEach((keyId, i) => {
    const key = keys.get(keyId);
    if (!key) return; // key deleted from Redis: nothing to attribute
    const counters = (replies[i]?.[1] ?? {}) as Record<string, string>;
    const row = (metric: string, endpoint: string, value: number): ApiKeyUsageRow => ({
      day,
      account_id: key.account_id,
      key_id: keyId,
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
  });
  return rows;
}
