// Request and response shapes of the listing endpoints, as zod schemas: the bulk body is parsed
// with them, and the OpenAPI document is generated from all of them (the route declarations in
// ingest/listings/routes.ts).
import { z } from 'zod';
import { listingSchema } from '../../common/domain/listing.ts';
import { imageChecksSchema } from '../../common/photos/batch-image-checks.ts';
import { photoSummarySchema } from '../../common/photos/batch-summary.ts';
import { batchEnvelope } from '../validation/batch-envelope.ts';

export const MAX_LISTINGS_PER_REQUEST = 100;

/** POST /listings/bulk: up to MAX_LISTINGS_PER_REQUEST listings a request. */
export const bulkEnvelope = batchEnvelope({
  field: 'listings',
  max: MAX_LISTINGS_PER_REQUEST,
  tooManyCode: 'too_many_listings',
  items: 'listings',
  itemsInBody: 'listing objects',
});

export const bulkBodyDocSchema = bulkEnvelope.docSchema(listingSchema).meta({ title: 'BulkCreateRequest' });

export const fieldErrorSchema = z
  .object({
    field: z.string().meta({ description: 'Dotted path inside the listing, e.g. images.3' }),
    code: z.string().meta({ description: 'Stable error code (docs/ingest.md)' }),
    message: z.string(),
  })
  .meta({ title: 'FieldError' });

export const listingResultSchema = z
  .object({
    index: z.number().int().meta({ description: 'Zero-based position in the request' }),
    success: z.boolean(),
    status: z.enum(['created', 'duplicate', 'failed']),
    listing_id: z.uuid().optional(),
    title: z.string().optional(),
    duplicate_of_batch_id: z.uuid().optional().meta({ description: 'Batch that first accepted it' }),
    errors: z.array(fieldErrorSchema).optional(),
    warnings: z.array(fieldErrorSchema).optional(),
  })
  .meta({ title: 'ListingResult' });

export const bulkResponseSchema = z
  .object({
    batch_id: z.uuid(),
    summary: z.object({
      total: z.number().int(),
      succeeded: z.number().int().meta({ description: 'created + duplicates' }),
      failed: z.number().int(),
      created: z.number().int(),
      duplicates: z.number().int(),
      test_mode: z.boolean(),
    }),
    results: z.array(listingResultSchema),
  })
  .meta({ title: 'BulkCreateResponse' });

export type ListingResult = z.infer<typeof listingResultSchema>;
export type BulkCreateResponse = z.infer<typeof bulkResponseSchema>;

export const batchStatusSchema = z
  .object({
    batch_id: z.uuid(),
    status: z.enum(['processing', 'completed']),
    test_mode: z.boolean(),
    total: z.number().int(),
    created: z.number().int(),
    duplicates: z.number().int(),
    failed: z.number().int(),
    stored: z.number().int().meta({ description: 'Created listings already stored' }),
    pending: z.number().int(),
    failed_indexes: z.array(z.number().int()),
    created_at: z.iso.datetime(),
    completed_at: z.iso.datetime().optional(),
    images: imageChecksSchema
      .nullable()
      .meta({ description: 'Asynchronous image checks; null until the checker reported' }),
    photos: photoSummarySchema
      .nullable()
      .meta({ description: 'Photo analysis (decode, tags, reuse); null until the checker analysed one' }),
  })
  .meta({ title: 'BatchStatus' });

export type BatchStatus = z.infer<typeof batchStatusSchema>;
