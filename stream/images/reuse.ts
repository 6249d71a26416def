// Is this photo already on another account's listing? Its hash, or its mirrored hash, within
// PHOTO_REUSE_MAX_DISTANCE bits of a stored photo's hash (listing_images) of another account in
// the same mode. Same account is never reuse (an agency re-listing its own flat), and test-mode
// photos are compared only with test-mode photos. The photos this worker analysed moments ago are
// kept in memory too: the writer stores them up to half a second later.
// Cost: one scan of the hash column of listing_images per photo, linear in the stored photos
// (measured ~30–90 ms per lookup at 1 M photos on the loaded 2-core machine); docs/webhooks.md has
// the figures and what to do beyond them.
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { listingImagesTable } from '../../common/warehouse/listing-images.ts';
import { defineQuery } from '../../common/warehouse/query.ts';
import { hammingDistance } from './phash.ts';

export interface PhotoIdentity {
  listing_id: string;
  image_index: number;
  account_id: string;
  is_test: 0 | 1;
  phash: bigint;
  mirrored: bigint;
}

export interface ReuseMatch {
  listing_id: string;
  image_index: number;
  account_id: string;
  distance: number;
}

const RECENT_LIMIT = 5_000;

// PREWHERE reads only the hash column for the distance test (a 64-bit XOR and popcount per stored
// photo); the other columns are read for the few rows within the distance.
const matchQuery = defineQuery({
  name: 'photo_reuse_match',
  params: z.object({
    h: z.string(),
    m: z.string(),
    test: z.union([z.literal(0), z.literal(1)]),
    account: z.string(),
    max: z.number().int(),
  }),
  row: z.object({
    listing_id: z.string(),
    image_index: z.number(),
    account_id: z.string(),
    distance: z.number(),
  }),
  sql: `
  SELECT toString(listing_id) AS listing_id, image_index, account_id,
         least(bitCount(bitXor(phash, {h:UInt64})), bitCount(bitXor(phash, {m:UInt64}))) AS distance
  FROM ${listingImagesTable.name}
  PREWHERE least(bitCount(bitXor(phash, {h:UInt64})), bitCount(bitXor(phash, {m:UInt64}))) <= {max:UInt8}
  WHERE is_test = {test:UInt8} AND outcome = 'decoded' AND account_id != {account:String} AND phash != 0
  ORDER BY distance, analysed_at
  LIMIT 1`,
});

export function reuseFinder(clickhouse: ClickHouseClient, maxDistance: number) {
  const recent: PhotoIdentity[] = [];

  function inMemory(photo: PhotoIdentity): ReuseMatch | undefined {
    let best: ReuseMatch | undefined;
    for (const other of recent) {
      if (other.account_id === photo.account_id || other.is_test !== photo.is_test) continue;
      const distance = Math.min(
        hammingDistance(photo.phash, other.phash),
        hammingDistance(photo.mirrored, other.phash),
      );
      if (distance <= maxDistance && (!best || distance < best.distance))
        best = {
          listing_id: other.listing_id,
          image_index: other.image_index,
          account_id: other.account_id,
          distance,
        };
    }
    return best;
  }

  return {
    /** The closest photo of another account, if any is within the distance. */
    async find(photo: PhotoIdentity): Promise<ReuseMatch | undefined> {
      const {
        rows: [stored],
      } = await matchQuery.run(clickhouse, {
        h: photo.phash.toString(),
        m: photo.mirrored.toString(),
        test: photo.is_test,
        account: photo.account_id,
        max: maxDistance,
      });
      const fresh = inMemory(photo);
      const match = !stored || (fresh && fresh.distance < Number(stored.distance)) ? fresh : stored;
      return match && { ...match, image_index: Number(match.image_index), distance: Number(match.distance) };
    },
    /** Remembers a photo about to be written, for the photos analysed before its insert lands. */
    remember(photo: PhotoIdentity): void {
      recent.push(photo);
      if (recent.length > RECENT_LIMIT) recent.splice(0, recent.length - RECENT_LIMIT);
    },
  };
}
