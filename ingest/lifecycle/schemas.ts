// Request and response shapes of the lifecycle endpoints (docs/lifecycle.md): status updates and the
// listing as stored. The bodies are parsed with these schemas and the OpenAPI document is generated
// from them (the route declarations, ingest/lifecycle/routes.ts).
import { z } from 'zod';
import { listingStatuses, settableStatuses } from '../../common/domain/lifecycle.ts';
import { currencies, externalIdPattern, propertyTypes } from '../../common/domain/listing.ts';
import { text } from '../../common/domain/text.ts';
import { fieldErrorSchema } from '../listings/schemas.ts';
import { batchEnvelope } from '../validation/batch-envelope.ts';

/** POST /listings/status: up to 100 updates a request. */
export const statusEnvelope = batchEnvelope({
  field: 'updates',
  max: 100,
  tooManyCode: 'too_many_listings',
  items: 'status updates',
  testModeDescription: "Address the account's test listings",
});

export const statusUpdateSchema = z
  .strictObject({
    listing_id: text().check(z.uuid()).optional(),
    external_id: text().regex(externalIdPattern).optional(),
    status: z.enum(settableStatuses),
    at: text()
      .check(z.iso.datetime({ offset: true }))
      .optional()
      .meta({ description: 'When it happened (default: now); not before listed_at, not in the future' }),
    rent_agreed: z
      .number()
      .positive()
      .max(1e12)
      .optional()
      .meta({ description: 'Monthly rent agreed, with status rented only' }),
    currency: z.enum(currencies).optional().meta({ description: 'Of rent_agreed (default TZS)' }),
  })
  .meta({ title: 'StatusUpdate', description: 'Exactly one of listing_id and external_id' });
export type StatusUpdate = z.infer<typeof statusUpdateSchema>;

export const statusBodyDocSchema = statusEnvelope
  .docSchema(statusUpdateSchema)
  .meta({ title: 'StatusUpdateRequest' });

export const statusResultSchema = z
  .object({
    index: z.number().int().meta({ description: 'Zero-based position in the request' }),
    success: z.boolean(),
    listing_id: z.uuid().optional(),
    status: z.enum(settableStatuses).optional(),
    errors: z.array(fieldErrorSchema).optional(),
  })
  .meta({ title: 'StatusResult' });
export type StatusResult = z.infer<typeof statusResultSchema>;

export const statusResponseSchema = z
  .object({
    summary: z.object({
      total: z.number().int(),
      succeeded: z.number().int(),
      failed: z.number().int(),
    }),
    results: z.array(statusResultSchema),
  })
  .meta({ title: 'StatusUpdateResponse' });
export type StatusResponse = z.infer<typeof statusResponseSchema>;

export const listingImageSchema = z.object({
  url: z.string(),
  checked: z.boolean().meta({ description: 'Whether the asynchronous image check has run' }),
  ok: z.boolean().nullable().meta({ description: 'Reachable image; null until checked' }),
  width: z.number().int().nullable().meta({ description: 'Pixels as displayed; null until decoded' }),
  height: z.number().int().nullable(),
  tags: z
    .array(z.object({ tag: z.string(), confidence: z.number() }))
    .meta({ description: 'RESO ImageOf values the photo model is confident of (≥ threshold), best first' }),
  image_of: z
    .string()
    .nullable()
    .meta({ description: 'RESO ImageOf value; Other when the model abstains; null until tagged' }),
  reused_photo: z.boolean().meta({ description: "The same photo is on another account's listing" }),
});

export const storedListingSchema = z
  .object({
    listing_id: z.uuid(),
    batch_id: z.uuid(),
    test_mode: z.boolean(),
    external_id: z.string().nullable(),
    status: z.enum(listingStatuses),
    status_at: z.iso.datetime().meta({ description: 'When the current status began' }),
    listed_at: z.iso.datetime(),
    stored_at: z.iso.datetime(),
    updated_at: z.iso.datetime().meta({ description: 'Last stored, re-sent or changed (expiry clock)' }),
    title: z.string(),
    description: z.string(),
    property_type: z.enum(propertyTypes),
    price: z.number(),
    currency: z.enum(currencies),
    price_tzs: z.number(),
    bedrooms: z.number().int().nullable(),
    bathrooms: z.number().int().nullable(),
    area_sqm: z.number().nullable(),
    address: z.string().nullable(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    amenities: z.array(z.string()).meta({ description: 'Normalised' }),
    images: z.array(listingImageSchema),
    video_url: z.string().nullable(),
    whatsapp_number: z.string().nullable(),
    location_id: z.uuid().nullable(),
    city: z.string().nullable().meta({ description: 'City slug; null when not placed' }),
    neighbourhood: z.string().nullable(),
    h3_index: z.string().nullable().meta({ description: 'H3 resolution-8 cell (hex)' }),
  })
  .meta({ title: 'StoredListing' });
export type StoredListing = z.infer<typeof storedListingSchema>;

export const snapshotRecordSchema = z
  .object({
    snapshot_id: z.string(),
    status: z
      .enum(['collecting', 'computing', 'applied', 'held'])
      .meta({ description: 'held: would withdraw more than 30 % of the stock; POST …/confirm applies it' }),
    parts: z.number().int(),
    parts_received: z.array(z.number().int()),
    external_ids: z.number().int().meta({ description: 'Distinct external ids declared so far' }),
    created_at: z.iso.datetime(),
    completed_at: z.iso.datetime().optional(),
    active: z.number().int().optional().meta({ description: 'Listings on the market when it completed' }),
    withdrawn: z.number().int().optional().meta({ description: 'Of those, left out of the snapshot' }),
    confirmed_at: z.iso.datetime().optional(),
  })
  .meta({ title: 'Snapshot' });
