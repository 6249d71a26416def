// Makes sure the listing owners (owners.ts) know every stored listing before a worker consumes:
// a marker key says they were built. Without it (a new deployment, or a Redis that lost its data),
// one worker rebuilds them from ClickHouse's `listings` (id → stored position) under a lock while the
// others wait; claims are HSETNX, so a rebuild never overrides a live claim.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Redis } from 'ioredis';
import type { Logger } from '../../common/logger.ts';
import { listingsTable } from '../../common/warehouse/listings.ts';
import { ownersRebuildKeys, type Claim, type ListingOwners } from './owners.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export const LOCK_TTL_SECONDS = 120;
const CLAIMS_PER_ROUND = 20_000;

export async function ensureOwnersBuilt(deps: {
  redis: Redis;
  clickhouse: ClickHouseClient;
  owners: ListingOwners;
  prefix: string;
  lockOwner: string;
  logger: Logger;
}): Promise<void> {
  const { redis, prefix, logger } = deps;
  const { marker, lock } = ownersRebuildKeys(prefix);
  while (!(await redis.exists(marker))) {
    if (!(await redis.set(lock, deps.lockOwner, 'EX', LOCK_TTL_SECONDS, 'NX'))) {
      await sleep(1_000); // another worker is rebuilding
      continue;
    }
    try {
      logger.info('rebuilding listing owners from ClickHouse before consuming (marker missing)');
      const count = await rebuild(deps, () => redis.expire(lock, LOCK_TTL_SECONDS));
      await redis.set(marker, new Date().toISOString());
      logger.info('listing owners built from ClickHouse', { listings: count });
    } finally {
      await redis.del(lock);
    }
  }
}

async function rebuild(
  deps: { clickhouse: ClickHouseClient; owners: ListingOwners; logger: Logger },
  keepLock: () => Promise<unknown>,
): Promise<number> {
  const result = await deps.clickhouse.query({
    query: `SELECT toString(listing_id) AS listingId,
                   concat(toString(_partition), ':', toString(_offset), ':', toString(_item)) AS position
            FROM ${listingsTable.name}`,
    format: 'JSONEachRow',
  });
  let claims: Claim[] = [];
  let count = 0;
  const flush = async () => {
    await deps.owners.claim(claims);
    if (Math.floor((count + claims.length) / 1e6) > Math.floor(count / 1e6))
      deps.logger.info('rebuilding listing owners', { listings: count + claims.length });
    count += claims.length;
    claims = [];
    await keepLock();
  };
  for await (const rows of result.stream()) {
    for (const row of rows) claims.push(row.json<Claim>());
    if (claims.length >= CLAIMS_PER_ROUND) await flush();
  }
  if (claims.length) await flush();
  return count;
}
