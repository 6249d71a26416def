// POST /listings/bulk as a service: validate each listing, derive its id, skip duplicates, record
// the batch, then publish the new listings to Kafka in one send. The route only translates HTTP.
// Order matters: the batch exists before its listings can reach the stream (which marks them
// stored in it), and a listing another request is still publishing is answered with a retriable
// 409, not "duplicate" — that publish may still fail, and then the listing would never exist.
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { dailyQuota } from '../../common/auth/tiers.ts';
import type { BatchStore } from '../../common/batches.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import type { Listing } from '../../common/domain/listing.ts';
import type { ListingBatchHeader } from '../../common/domain/messages.ts';
import { newId } from '../../common/ids.ts';
import { fieldErrors } from '../validation/field-errors.ts';
import { listingFingerprint, listingIdFor } from './fingerprint.ts';
import {
  bulkBodySchema,
  MAX_LISTINGS_PER_REQUEST,
  type BulkCreateResponse,
  type ListingResult,
} from './schemas.ts';
import type { QuotaStore } from '../quota.ts';
import type { SeenStore } from './seen-store.ts';
import { validateListing } from './validate.ts';

export interface BulkCreateDeps {
  seen: SeenStore;
  batches: BatchStore;
  /** Daily quota of created listings per account and mode (ingest/quota.ts). */
  quota: QuotaStore;
  /** Publishes the created listings (one message per request); rejects when Kafka is unavailable. */
  publish(head: ListingBatchHeader, items: { listing_id: string; listing: Listing }[]): Promise<void>;
  /** Where a failed compensating step is reported (the request fails either way). */
  logger: Logger;
  now?: () => number;
}

export interface BulkOutcome {
  status: 201 | 400;
  response: BulkCreateResponse;
}

export function isTestMode(auth: ApiKeyRecord, requested: boolean | undefined): boolean {
  return auth.mode === 'test' || requested === true;
}

export async function bulkCreate(
  deps: BulkCreateDeps,
  auth: ApiKeyRecord,
  body: unknown,
): Promise<BulkOutcome> {
  const envelope = parseEnvelope(body);
  const isTest = isTestMode(auth, envelope.test_mode);
  const mode = isTest ? 'test' : 'live';
  const now = deps.now?.() ?? Date.now();
  const receivedAt = new Date(now).toISOString();
  const batchId = newId();
  /**
   * A compensating step of a failed request. Its own failure leaves a trace the client cannot see:
   * claims that answer 409 until they expire, quota counted for nothing, a batch stuck processing.
   */
  const compensate = (step: string, work: Promise<unknown>) =>
    work.catch((error: unknown) =>
      deps.logger.warn('bulk create: compensating step failed', {
        step,
        batch_id: batchId,
        account_id: auth.account_id,
        error: String(error),
      }),
    );
  const results: ListingResult[] = [];
  const candidates: { index: number; listingId: string; listing: Listing }[] = [];
  const firstIndexOf = new Map<string, number>();

  envelope.listings.forEach((raw, index) => {
    const validation = validateListing(raw, { tier: auth.tier, now });
    if (!validation.ok) {
      results[index] = { index, success: false, status: 'failed', errors: validation.errors };
      return;
    }
    const { listing, warnings } = validation;
    const listingId = listingIdFor(auth.account_id, mode, listingFingerprint(listing));
    const result: ListingResult = {
      index,
      success: true,
      status: 'created',
      listing_id: listingId,
      title: listing.title,
    };
    if (warnings.length) result.warnings = warnings;
    results[index] = result;
    // The same listing twice in one request: the later copy is a duplicate of the earlier one.
    if (firstIndexOf.has(listingId)) {
      result.status = 'duplicate';
      result.duplicate_of_batch_id = batchId;
      return;
    }
    firstIndexOf.set(listingId, index);
    candidates.push({ index, listingId, listing });
  });

  const holders = await deps.seen
    .claim(
      candidates.map((c) => c.listingId),
      batchId,
    )
    .catch((error: unknown) => {
      throw dependencyUnavailable('redis', error);
    });
  const claimed = candidates.filter((_, i) => !holders[i]).map((c) => c.listingId);
  const inFlight = candidates.filter((_, i) => holders[i]?.inFlight).map((c) => c.index);
  if (inFlight.length) {
    await compensate('release claims', deps.seen.release(claimed));
    throw new AppError(
      'listing_in_progress',
      `Listings at index ${inFlight.join(', ')} are being created by another request that has not ` +
        'finished; retry shortly (they are either created then, or yours to create)',
      { retriable: true, retryAfterSeconds: 1, details: { indexes: inFlight } },
    );
  }
  const fresh = candidates.filter((candidate, i) => {
    const holder = holders[i];
    if (!holder) return true;
    const result = results[candidate.index]!;
    result.status = 'duplicate';
    result.duplicate_of_batch_id = holder.batchId;
    return false;
  });
  const createdIds = fresh.map((c) => c.listingId);
  const failedIndexes = results.filter((r) => !r.success).map((r) => r.index);
  const duplicates = results.filter((r) => r.status === 'duplicate').length;

  // Only listings this request creates count: duplicates and failed listings cost nothing.
  const owner = { accountId: auth.account_id, mode } as const;
  const at = new Date(now);
  try {
    await deps.quota.reserve(owner, 'listings', createdIds.length, dailyQuota(auth, 'listingsPerDay'), at);
  } catch (error) {
    await compensate('release claims', deps.seen.release(createdIds));
    throw error instanceof AppError ? error : dependencyUnavailable('redis', error);
  }
  const undo = () =>
    Promise.all([
      compensate('release claims', deps.seen.release(createdIds)),
      compensate('refund quota', deps.quota.refund(owner, 'listings', createdIds.length, at)),
    ]);
  try {
    await deps.batches.create({
      batch_id: batchId,
      account_id: auth.account_id,
      key_id: auth.id,
      is_test: isTest,
      total: results.length,
      duplicates,
      failed_indexes: failedIndexes,
      created_ids: createdIds,
    });
  } catch (error) {
    await undo();
    throw dependencyUnavailable('redis', error);
  }
  if (fresh.length) {
    try {
      await deps.publish(
        { account_id: auth.account_id, batch_id: batchId, is_test: isTest, received_at: receivedAt },
        fresh.map((c) => ({ listing_id: c.listingId, listing: c.listing })),
      );
    } catch (error) {
      // Nothing of this batch will be stored: the client gets a 503 and never sees its id.
      await Promise.all([undo(), compensate('remove batch record', deps.batches.remove(batchId))]);
      throw dependencyUnavailable('kafka', error);
    }
  }
  try {
    await deps.seen.confirm(createdIds, batchId);
  } catch (error) {
    // The listings are published (and will be stored); only the bookkeeping failed. Retrying is
    // safe — ids are deterministic — so report the outage instead of a half-known batch.
    throw dependencyUnavailable('redis', error);
  }

  const succeeded = results.length - failedIndexes.length;
  return {
    status: succeeded > 0 ? 201 : 400,
    response: {
      batch_id: batchId,
      summary: {
        total: results.length,
        succeeded,
        failed: failedIndexes.length,
        created: createdIds.length,
        duplicates,
        test_mode: isTest,
      },
      results,
    },
  };
}

function parseEnvelope(body: unknown): { listings: unknown[]; test_mode?: boolean } {
  // Checked before the schema so a huge array is refused without validating anything in it.
  if (body && typeof body === 'object' && Array.isArray((body as { listings?: unknown }).listings)) {
    const count = (body as { listings: unknown[] }).listings.length;
    if (count > MAX_LISTINGS_PER_REQUEST) {
      throw new AppError(
        'too_many_listings',
        `A request may hold at most ${MAX_LISTINGS_PER_REQUEST} listings; got ${count}. Split them into several requests.`,
        { details: { max: MAX_LISTINGS_PER_REQUEST, got: count } },
      );
    }
  }
  const parsed = bulkBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new AppError(
      'validation_failed',
      'The body must be {"listings": [1 to 100 listing objects], "test_mode"?: boolean}',
      { details: fieldErrors(parsed.error.issues, body) },
    );
  }
  return parsed.data;
}
