// POST /listings/bulk as a service: validate each listing, derive its id, publish the accepted ones
// to Kafka and record the batch. The route only translates HTTP to this and back.
import { z } from 'zod';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import { deterministicUuid, newId } from '../../common/ids.ts';
import { listingSchema, type Listing } from '../../common/domain/listing.ts';
import type { ListingMessage } from '../../common/domain/messages.ts';
import type { IngestContext } from '../context.ts';

export const MAX_LISTINGS_PER_REQUEST = 100;

const bulkBodySchema = z.strictObject({
  listings: z.array(z.unknown()),
  test_mode: z.boolean().optional(),
});

export interface ListingResult {
  index: number;
  success: boolean;
  listing_id?: string;
  title?: string;
  errors?: { field: string; code: string; message: string }[];
}

export interface BulkCreateResponse {
  batch_id: string;
  summary: { total: number; succeeded: number; failed: number; test_mode: boolean };
  results: ListingResult[];
}

export async function bulkCreate(
  ctx: IngestContext,
  auth: ApiKeyRecord,
  body: unknown,
): Promise<BulkCreateResponse> {
  const parsed = bulkBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new AppError(
      'validation_failed',
      'Request body must be {"listings": [...], "test_mode"?: boolean}',
      {
        details: parsed.error.issues.map((i) => ({
          field: i.path.join('.'),
          code: i.code,
          message: i.message,
        })),
      },
    );
  }
  const { listings } = parsed.data;
  if (listings.length > MAX_LISTINGS_PER_REQUEST) {
    throw new AppError(
      'too_many_listings',
      `A request may hold at most ${MAX_LISTINGS_PER_REQUEST} listings; got ${listings.length}. Split them into several requests.`,
    );
  }
  const isTest = auth.mode === 'test' || parsed.data.test_mode === true;
  const batchId = newId();
  const receivedAt = new Date().toISOString();
  const results: ListingResult[] = [];
  const messages: ListingMessage[] = [];

  listings.forEach((raw, index) => {
    const result = listingSchema.safeParse(raw);
    if (!result.success) {
      results.push({
        index,
        success: false,
        errors: result.error.issues.map((i) => ({
          field: i.path.join('.'),
          code: i.code,
          message: i.message,
        })),
      });
      return;
    }
    const listing: Listing = result.data;
    const listingId = deterministicUuid(
      `${auth.account_id}|${isTest ? 'test' : 'live'}|${JSON.stringify(listing)}`,
    );
    messages.push({
      v: 1,
      listing_id: listingId,
      account_id: auth.account_id,
      batch_id: batchId,
      is_test: isTest,
      received_at: receivedAt,
      listing,
    });
    results.push({ index, success: true, listing_id: listingId, title: listing.title });
  });

  if (messages.length) {
    try {
      await ctx.producer.send({
        topic: ctx.platform.topic('rls.listings.v1'),
        messages: messages.map((m) => ({ key: m.listing_id, value: JSON.stringify(m) })),
      });
    } catch (error) {
      throw dependencyUnavailable('kafka', error);
    }
  }
  const succeeded = messages.length;
  return {
    batch_id: batchId,
    summary: { total: listings.length, succeeded, failed: listings.length - succeeded, test_mode: isTest },
    results,
  };
}
