// A listing message → one enriched row of the `listings` table (common/warehouse/listings.ts).
import type { ListingMessage } from '../../common/domain/messages.ts';
import { normaliseAmenities } from '../enrich/amenities.ts';
import { toTzs, type FxTable } from '../enrich/fx.ts';
import { placeOf } from '../enrich/location.ts';
import type { ListingRow } from '../../common/warehouse/listings.ts';
import type { Provenance } from '../offset-consumer.ts';

export function listingRow(
  message: ListingMessage,
  provenance: Provenance,
  storedAt: string,
  fx: FxTable,
): ListingRow {
  const l = message.listing;
  const place = placeOf(l);
  const { price_tzs, rate } = toTzs(fx, l.price, l.currency);
  return {
    listing_id: message.listing_id,
    account_id: message.account_id,
    batch_id: message.batch_id,
    is_test: message.is_test ? 1 : 0,
    // The client's listing date when given (validated at ingest), else when the API received it.
    listed_at: l.listed_at ?? message.received_at,
    stored_at: storedAt,
    title: l.title,
    description: l.description,
    property_type: l.property_type,
    price: l.price,
    currency: l.currency,
    price_tzs,
    fx_rate_to_tzs: rate,
    bedrooms: l.bedrooms ?? null,
    bathrooms: l.bathrooms ?? null,
    area_sqm: l.area_sqm ?? null,
    address: l.address ?? '',
    latitude: l.latitude ?? null,
    longitude: l.longitude ?? null,
    amenities: normaliseAmenities(l.amenities),
    images: l.images ?? [],
    video_url: l.video_url ?? '',
    whatsapp_number: l.whatsapp_number ?? '',
    location_id: l.location_id ?? null,
    external_id: l.external_id ?? '',
    ...place,
    version: 1,
    ...provenance,
  };
}
