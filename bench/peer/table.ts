// The peer's store: one plain MergeTree table in a database of its own, created and dropped by
// bench:stream. `stored_at` is the server's time of the insert, from which the bench reads each
// request's freshness (201 → stored); the rest is what a first version would keep of a listing.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Listing } from '../../common/domain/listing.ts';

export const PEER_TABLE = 'listings';

/** The message the peer's API publishes: one per request. */
export interface PeerMessage {
  request_id: string;
  received_at: string;
  listings: Listing[];
}

export async function createPeerTable(ch: ClickHouseClient, database: string): Promise<void> {
  await ch.command({
    query: 'CREATE DATABASE IF NOT EXISTS {db:Identifier}',
    query_params: { db: database },
  });
  await ch.command({
    query: `CREATE TABLE IF NOT EXISTS {db:Identifier}.{table:Identifier} (
      listing_id UUID,
      request_id String,
      title String,
      description String,
      property_type LowCardinality(String),
      price Float64,
      currency LowCardinality(String),
      bedrooms Nullable(UInt16),
      bathrooms Nullable(UInt16),
      address Nullable(String),
      latitude Nullable(Float64),
      longitude Nullable(Float64),
      amenities Array(String),
      received_at DateTime64(3, 'UTC'),
      stored_at DateTime64(3, 'UTC') DEFAULT now64(3)
    ) ENGINE = MergeTree ORDER BY (property_type, received_at)`,
    query_params: { db: database, table: PEER_TABLE },
  });
}

export async function dropPeerDatabase(ch: ClickHouseClient, database: string): Promise<void> {
  await ch.command({ query: 'DROP DATABASE IF EXISTS {db:Identifier}', query_params: { db: database } });
}

/** The table's rows of one message (JSONEachRow: ClickHouse fills `stored_at`). */
export function peerRows(message: PeerMessage) {
  // DateTime64 in JSONEachRow takes "YYYY-MM-DD hh:mm:ss.sss", not ISO's T and Z.
  const receivedAt = message.received_at.replace('T', ' ').replace('Z', '');
  return message.listings.map((listing) => ({
    listing_id: crypto.randomUUID(),
    request_id: message.request_id,
    title: listing.title,
    description: listing.description,
    property_type: listing.property_type,
    price: listing.price,
    currency: listing.currency,
    bedrooms: listing.bedrooms ?? null,
    bathrooms: listing.bathrooms ?? null,
    address: listing.address ?? null,
    latitude: listing.latitude ?? null,
    longitude: listing.longitude ?? null,
    amenities: listing.amenities ?? [],
    received_at: receivedAt,
  }));
}
