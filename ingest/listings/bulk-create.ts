// POST /listings/bulk as a service: validate each listing, derive its id, skip duplicates, record
// the batch, then publish the new listings to Kafka in one send. The route only translates HTTP.
// Order matters: the batch exists before its listings can reach the stream (which marks them
// stored in it), and a listing another request is still publishing is answered with a retriable
// 409, not "duplicate" — that publish may still fail, and then the listing would never exist.
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { dailyQuota } from '../../common/auth/tiers.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import type { Listing } from '../../common/domain/listing.ts';
import type { ListingBatchHeader } from '../../common/domain/messages.ts';
import { newId } from '../../common/ids.ts';
import type { AdmissionRequest, AdmissionStore } from './admission.ts';
import { listingFingerprint, listingIdFor } from './fingerprint.ts';
import { bulkEnvelope, type BulkCreateResponse, type ListingResult } from './schemas.ts';
import { validateListing } from './validate.ts';

export interface BulkCreateDeps {
  /** Claims, quota and batch record in Redis (admission.ts). */
  admission: AdmissionStore;
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

interface Candidate {
  index: number;
  listingId: string;
  listing: Listing;
}

/** One request as its steps share it. */
interface BulkRequest {
  auth: ApiKeyRecord;
  isTest: boolean;
  now: number;
  batchId: string;
  results: ListingResult[];
  /** The valid listings, each id once (a later copy in the request is a duplicate of the first). */
  candidates: Candidate[];
}

export function isTestMode(auth: ApiKeyRecord, requested: boolean | undefined): boolean {
  return auth.mode === 'test' || requested === true;
}

export async function bulkCreate(
  deps: BulkCreateDeps,
  auth: ApiKeyRecord,
  body: unknown,
): Promise<BulkOutcome> {
  const envelope = bulkEnvelope.parse(body);
  const isTest = isTestMode(auth, envelope.test_mode);
  const now = deps.now?.() ?? Date.now();
  const request = validateAll(envelope.listings, { auth, isTest, now, batchId: newId() });
  const admission = admissionOf(request);
  const fresh = await admit(deps, request, admission);
  if (fresh.length) await publishOrAbandon(deps, request, admission, fresh);
  try {
    await deps.admission.confirm(
      auth.account_id,
      fresh.map((c) => c.listingId),
      request.batchId,
    );
  } catch (error) {
    // The listings are published (and will be stored); only the bookkeeping failed. Retrying is
    // safe — ids are deterministic — so report the outage instead of a half-known batch.
    throw dependencyUnavailable('redis', error);
  }
  return outcomeOf(request, fresh.length);
}

/** Each listing validated and given its id; the result of every index is known but for duplicates. */
function validateAll(listings: unknown[], base: Omit<BulkRequest, 'results' | 'candidates'>): BulkRequest {
  const { auth, isTest, now, batchId } = base;
  const mode = isTest ? 'test' : 'live';
  const results: ListingResult[] = [];
  const candidates: Candidate[] = [];
  const firstIndexOf = new Map<string, number>();
  listings.forEach((raw, index) => {
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
    if (firstIndexOf.has(listingId)) {
      result.status = 'duplicate';
      result.duplicate_of_batch_id = batchId;
      return;
    }
    firstIndexOf.set(listingId, index);
    candidates.push({ index, listingId, listing });
  });
  return { ...base, results, candidates };
}

function admissionOf(request: BulkRequest): AdmissionRequest {
  const { auth, isTest, results } = request;
  return {
    batch: {
      batch_id: request.batchId,
      account_id: auth.account_id,
      key_id: auth.id,
      is_test: isTest,
      total: results.length,
      duplicates: results.filter((r) => r.status === 'duplicate').length,
      failed_indexes: results.filter((r) => !r.success).map((r) => r.index),
    },
    owner: { accountId: auth.account_id, mode: isTest ? 'test' : 'live' },
    candidates: request.candidates.map((c) => c.listingId),
    // Only listings this request creates count: duplicates and failed listings cost nothing.
    limit: dailyQuota(auth, 'listingsPerDay'),
    at: new Date(request.now),
  };
}

/**
 * Claims the candidates, reserves their quota and records the batch (admission.ts); marks those
 * another batch created as duplicates and returns the new ones. A listing another request is still
 * publishing is a retriable 409, not "duplicate": that publish may still fail.
 */
async function admit(deps: BulkCreateDeps, request: BulkRequest, admission: AdmissionRequest) {
  const outcome = await deps.admission.admit(admission).catch((error: unknown) => {
    throw error instanceof AppError ? error : dependencyUnavailable('redis', error);
  });
  if (outcome.kind === 'in_flight') {
    const indexes = outcome.positions.map((p) => request.candidates[p]!.index);
    throw new AppError(
      'listing_in_progress',
      `Listings at index ${indexes.join(', ')} are being created by another request that has not ` +
        'finished; retry shortly (they are either created then, or yours to create)',
      { retriable: true, retryAfterSeconds: 1, details: { indexes } },
    );
  }
  return request.candidates.filter((candidate, i) => {
    const holder = outcome.holders[i];
    if (!holder) return true;
    const result = request.results[candidate.index]!;
    result.status = 'duplicate';
    result.duplicate_of_batch_id = holder.batchId;
    return false;
  });
}

/** Publishes the new listings; when that fails, nothing of the batch remains and the client gets a 503. */
async function publishOrAbandon(
  deps: BulkCreateDeps,
  request: BulkRequest,
  admission: AdmissionRequest,
  fresh: Candidate[],
): Promise<void> {
  const { auth, batchId, isTest } = request;
  try {
    await deps.publish(
      {
        account_id: auth.account_id,
        batch_id: batchId,
        is_test: isTest,
        received_at: new Date(request.now).toISOString(),
      },
      fresh.map((c) => ({ listing_id: c.listingId, listing: c.listing })),
    );
  } catch (error) {
    // If giving back fails too, the trace is one the client cannot see (claims answering 409 until
    // they expire, quota counted for nothing, a batch stuck processing): it is logged.
    await deps.admission
      .abandon(
        admission,
        fresh.map((c) => c.listingId),
      )
      .catch((undoError: unknown) =>
        deps.logger.warn('bulk create: compensating step failed', {
          step: 'release claims, quota and batch record',
          batch_id: batchId,
          account_id: auth.account_id,
          error: String(undoError),
        }),
      );
    throw dependencyUnavailable('kafka', error);
  }
}

function outcomeOf(request: BulkRequest, created: number): BulkOutcome {
  const { results } = request;
  const failed = results.filter((r) => !r.success).length;
  const succeeded = results.length - failed;
  return {
    status: succeeded > 0 ? 201 : 400,
    response: {
      batch_id: request.batchId,
      summary: {
        total: results.length,
        succeeded,
        failed,
        created,
        duplicates: results.filter((r) => r.status === 'duplicate').length,
        test_mode: request.isTest,
      },
      results,
    },
  };
}
