// Enriched `listings` rows as the stream builds them (listingRow()), for the benchmarks that write
// the table directly (bench:writer, bench:writer-formats): Dar es Salaam coordinates, a few
// property types and currencies, each row at its own Kafka position.
import { randomUUID } from 'node:crypto';
import type { ListingRow } from '../common/warehouse/listings.ts';
import { fxTable } from '../stream/enrich/fx.ts';
import { listingRow } from '../stream/listings/row.ts';

const fx = fxTable(undefined);

/** `count` rows of `account`, at offsets `firstOffset`… of partitions 0–5 of `topic`. */
export function benchListingRows(
  count: number,
  {
    account,
    topic,
    firstOffset,
    title,
  }: { account: string; topic: string; firstOffset: number; title: string },
): ListingRow[] {
  const receivedAt = new Date().toISOString();
  return Array.from({ length: count }, (_, i) =>
    listingRow(
      {
        v: 1,
        listing_id: randomUUID(),
        account_id: account,
        batch_id: randomUUID(),
        is_test: false,
        received_at: receivedAt,
        listing: {
          title: `${title} ${firstOffset + i}`,
          description: 'Two-bedroom apartment near the beach, with parking, a generator and fast wifi.',
          property_type: i % 3 === 0 ? 'house' : 'apartment',
          price: 500_000 + (i % 100) * 1_000,
          currency: i % 5 === 0 ? 'USD' : 'TZS',
          bedrooms: 1 + (i % 4),
          bathrooms: 1,
          latitude: -6.75 - (i % 100) / 1000,
          longitude: 39.27 + (i % 100) / 1000,
          amenities: ['Parking', 'generator', 'Wi-Fi'],
        },
      } as never,
      { _topic: topic, _partition: i % 6, _offset: String(firstOffset + i), _item: 0 },
      receivedAt,
      fx,
    ),
  );
}
