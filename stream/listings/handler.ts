// Listing messages → enriched rows of the listings table (or quarantine when they are invalid).
import type { KafkaMessage } from 'kafkajs';
import { listingMessageSchema, type ListingMessage } from '../../common/domain/messages.ts';
import { nearestCity } from '../enrich/city.ts';
import { h3Cell } from '../enrich/h3.ts';
import type { BatchHandler, Provenance } from '../offset-consumer.ts';
import type { ClickHouseWriter } from '../sink/clickhouse-writer.ts';
import type { Quarantine } from '../sink/quarantine.ts';

export const listingColumns = [
  'listing_id',
  'account_id',
  'batch_id',
  'is_test',
  'listed_at',
  'stored_at',
  'title',
  'description',
  'property_type',
  'price',
  'currency',
  'price_tzs',
  'fx_rate_to_tzs',
  'bedrooms',
  'bathrooms',
  'area_sqm',
  'address',
  'latitude',
  'longitude',
  'amenities',
  'images',
  'video_url',
  'whatsapp_number',
  'location_id',
  'external_id',
  'h3_index',
  'city',
  'neighbourhood',
  'location_source',
  'version',
  '_topic',
  '_partition',
  '_offset',
];

const USD_TO_TZS = 2_500;

export function listingRow(message: ListingMessage, provenance: Provenance, storedAt: string) {
  const l = message.listing;
  const hasPoint = l.latitude !== undefined && l.longitude !== undefined;
  const rate = l.currency === 'USD' ? USD_TO_TZS : 1;
  return {
    listing_id: message.listing_id,
    account_id: message.account_id,
    batch_id: message.batch_id,
    is_test: message.is_test ? 1 : 0,
    listed_at: message.received_at,
    stored_at: storedAt,
    title: l.title,
    description: l.description,
    property_type: l.property_type,
    price: l.price,
    currency: l.currency,
    price_tzs: l.price * rate,
    fx_rate_to_tzs: rate,
    bedrooms: l.bedrooms ?? null,
    bathrooms: l.bathrooms ?? null,
    area_sqm: l.area_sqm ?? null,
    address: l.address ?? '',
    latitude: l.latitude ?? null,
    longitude: l.longitude ?? null,
    amenities: l.amenities ?? [],
    images: l.images ?? [],
    video_url: l.video_url ?? '',
    whatsapp_number: l.whatsapp_number ?? '',
    location_id: l.location_id ?? null,
    external_id: '',
    h3_index: hasPoint ? h3Cell(l.latitude!, l.longitude!) : '0',
    city: hasPoint ? nearestCity(l.latitude!, l.longitude!) : '',
    neighbourhood: '',
    location_source: hasPoint ? 'coordinates' : 'none',
    version: 1,
    ...provenance,
  };
}

export function createListingsHandler(writer: ClickHouseWriter, quarantine: Quarantine): BatchHandler {
  return {
    async handle(messages: KafkaMessage[], provenance: (m: KafkaMessage) => Provenance) {
      const storedAt = new Date().toISOString();
      const rows: Record<string, unknown>[] = [];
      const bad: Parameters<Quarantine['rows']>[0] = [];
      for (const message of messages) {
        const parsed = parseMessage(message);
        if (parsed.ok) rows.push(listingRow(parsed.value, provenance(message), storedAt));
        else bad.push({ message, error: parsed.error, provenance: provenance(message) });
      }
      await Promise.all([writer.write(rows), quarantine.rows(bad)]);
    },
  };
}

function parseMessage(
  message: KafkaMessage,
): { ok: true; value: ListingMessage } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(message.value?.toString('utf8') ?? '');
  } catch (error) {
    return { ok: false, error: `not JSON: ${(error as Error).message}` };
  }
  const result = listingMessageSchema.safeParse(json);
  if (!result.success) {
    return {
      ok: false,
      error: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    };
  }
  return { ok: true, value: result.data };
}
