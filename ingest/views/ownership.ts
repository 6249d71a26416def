// Whose listing a view is for: keys without the portal role may post views only of their
// own account's listings in the same mode, so no account can steer the market's demand figures
// with views of other accounts' listings. A listing is known once stored (ClickHouse
// `listing_lookup`, by primary key) or, in the seconds before that, from the ingest API's own
// records (its claim names a published batch, whose record names the account and mode).
//
// Ownership of an id never changes (the id is derived from account and mode), so confirmed ids are
// cached in the process; unknown ids are not (the listing may be stored a moment later).
import type { ClickHouseClient } from '@clickhouse/client';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { batchStore } from '../../common/batches.ts';
import { dependencyUnavailable } from '../../common/errors.ts';
import { seenStore } from '../listings/seen-store.ts';
import { listingLookupTable } from '../../common/warehouse/listing-lookup.ts';
import { defineQuery } from '../../common/warehouse/query.ts';

const ownersQuery = defineQuery({
  name: 'listing_owners',
  params: z.object({ ids: z.array(z.string()) }),
  row: z.object({ id: z.string(), account_id: z.string(), is_test: z.number() }),
  sql: `SELECT toString(listing_id) AS id, account_id, is_test FROM ${listingLookupTable.name}
       WHERE listing_id IN {ids:Array(UUID)} LIMIT 1 BY listing_id`,
});

export interface OwnershipDeps {
  clickhouse: ClickHouseClient;
  redis: Redis;
  prefix: string;
  /** REDIS_GLOBAL_PARTS */
  parts: number;
  cacheSize?: number;
}

export function listingOwnership(deps: OwnershipDeps) {
  const maxEntries = deps.cacheSize ?? 100_000;
  const known = new Map<string, string>(); // listing id → "account|0/1", insertion order = age
  const batchRecords = batchStore(deps.redis, deps.prefix, deps.parts);
  const seen = seenStore(deps.redis, deps.prefix);

  function remember(id: string, owner: string) {
    known.delete(id);
    known.set(id, owner);
    if (known.size > maxEntries) known.delete(known.keys().next().value!);
  }

  async function fromWarehouse(ids: string[]): Promise<Map<string, string>> {
    const { rows } = await ownersQuery.run(deps.clickhouse, { ids }).catch((error: unknown) => {
      throw dependencyUnavailable('clickhouse', error);
    });
    return new Map(rows.map((r) => [r.id, `${r.account_id}|${Number(r.is_test)}`]));
  }

  /**
   * Listings of `accountId` accepted by the API but maybe not stored yet: its seen key → batch → its
   * account and mode (the seen keys and batches are read under the account's own tag: those of
   * another account are not looked at).
   */
  async function fromRecentBatches(ids: string[], accountId: string): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    try {
      const batches = await seen.publishedHolders(accountId, ids);
      const confirmed = ids
        .map((id, i) => ({ id, batch: batches[i] }))
        .filter((e): e is { id: string; batch: string } => e.batch !== undefined);
      if (!confirmed.length) return found;
      const owners = await batchRecords.ownersOf(
        accountId,
        confirmed.map((e) => e.batch),
      );
      confirmed.forEach((e, i) => {
        const owner = owners[i];
        if (owner) found.set(e.id, `${owner.account_id}|${owner.is_test ? 1 : 0}`);
      });
    } catch (error) {
      throw dependencyUnavailable('redis', error);
    }
    return found;
  }

  return {
    /** The subset of `ids` (lower-case UUIDs) that are listings of `accountId` in that mode. */
    async ownedBy(ids: string[], accountId: string, isTest: boolean): Promise<Set<string>> {
      const wanted = `${accountId}|${isTest ? 1 : 0}`;
      const unique = [...new Set(ids)];
      const owners = new Map<string, string>();
      for (const id of unique) {
        const owner = known.get(id);
        if (owner !== undefined) owners.set(id, owner);
      }
      let missing = unique.filter((id) => !owners.has(id));
      if (missing.length) {
        for (const [id, owner] of await fromWarehouse(missing)) {
          owners.set(id, owner);
          remember(id, owner);
        }
        missing = missing.filter((id) => !owners.has(id));
      }
      if (missing.length)
        for (const [id, owner] of await fromRecentBatches(missing, accountId)) owners.set(id, owner);
      return new Set(unique.filter((id) => owners.get(id) === wanted));
    },
  };
}

export type ListingOwnership = ReturnType<typeof listingOwnership>;
