// What a client is told must match what will exist: Idempotency-Key records are scoped
// by account, mode and endpoint; a listing still being created by another request is a retriable
// 409, never a "duplicate"; the batch record exists before its listings are published; a batch is
// visible to the keys of its mode (and to the key that created it) only.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyStore, type ApiKeyRecord } from '../../common/auth/key-store.ts';
import { batchStore } from '../../common/batches.ts';
import { listingSchema } from '../../common/domain/listing.ts';
import { createLogger } from '../../common/logger.ts';
import { bulkCreate, type BulkCreateDeps } from '../../ingest/listings/bulk-create.ts';
import { listingFingerprint, listingIdFor } from '../../ingest/listings/fingerprint.ts';
import { admissionStore } from '../../ingest/listings/admission.ts';
import { claimsKey, seenKey } from '../../ingest/listings/seen-store.ts';
import { api, createTestKey, env, sampleListing, testRedis } from '../support/api.ts';

/** The id the API derives for `listing` of `accountId` (ingest/listings/fingerprint.ts). */
function listingIdOf(accountId: string, mode: 'live' | 'test', listing: Record<string, unknown>): string {
  return listingIdFor(accountId, mode, listingFingerprint(listingSchema.parse(listing)));
}

describe('Idempotency-Key scope (security)', () => {
  it('never replays a test-mode response to a live key of the same account, or the reverse', async () => {
    const live = await createTestKey();
    const test = await createTestKey({ mode: 'test', accountId: live.account_id });
    const body = { listings: [sampleListing()] };
    const headers = { 'Idempotency-Key': `mode-${Date.now()}` };
    const first = await api('POST', '/api/v1/listings/bulk', { key: test.key, body, headers });
    expect(first.status).toBe(201);
    expect(first.body.summary.test_mode).toBe(true);
    const second = await api('POST', '/api/v1/listings/bulk', { key: live.key, body, headers });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotency-replayed')).toBeNull();
    expect(second.body.summary.test_mode).toBe(false);
    expect(second.body.batch_id).not.toBe(first.body.batch_id);
    // Each mode still replays its own first answer.
    const again = await api('POST', '/api/v1/listings/bulk', { key: test.key, body, headers });
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.batch_id).toBe(first.body.batch_id);
  });
});

describe('listing still being created by another request (error)', () => {
  it('answers a retriable 409 instead of "duplicate", and leaves nothing claimed', async () => {
    const { key, account_id } = await createTestKey();
    const busy = sampleListing();
    const other = sampleListing();
    // The claims a concurrent request holds between its admission and its Kafka publish
    // (seen-store.ts): the id's claim names the batch, whose claims key says it is still publishing.
    const redis = await testRedis();
    const otherBatch = randomUUID();
    const seen = seenKey(env.REDIS_KEY_PREFIX, account_id, listingIdOf(account_id, 'live', busy));
    const claims = claimsKey(env.REDIS_KEY_PREFIX, account_id, otherBatch);
    await redis.set(seen, `p:${otherBatch}`, 'EX', 60);
    await redis.set(claims, 'pending', 'EX', 60);
    const headers = { 'Idempotency-Key': `inflight-${Date.now()}` };
    const refused = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [other, busy] },
      headers,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'listing_in_progress',
      retriable: true,
      details: { indexes: [1] },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // The other request died before publishing: its claims key expired, so its claim no longer
    // counts and the retry (same Idempotency-Key, not a replay of the 409) takes the id over and
    // creates both listings.
    await redis.del(claims);
    const retried = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [other, busy] },
      headers,
    });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotency-replayed')).toBeNull();
    expect(retried.body.results.map((r: { status: string }) => r.status)).toEqual(['created', 'created']);
  });
});

/**
 * bulkCreate of one listing while the broker is down (the publish sees the batch, then fails):
 * expects the request to fail as dependency_unavailable and returns the batch id the publish saw.
 */
async function expectBrokerDownRejection(
  deps: Omit<BulkCreateDeps, 'publish'>,
  auth: ApiKeyRecord,
): Promise<string | undefined> {
  let attempted: string | undefined;
  const failing = bulkCreate(
    {
      ...deps,
      async publish(head) {
        attempted = head.batch_id;
        throw new Error('broker down');
      },
    },
    auth,
    { listings: [sampleListing()] },
  );
  await expect(failing).rejects.toMatchObject({ code: 'dependency_unavailable' });
  return attempted;
}

describe('batch record before the publish (happy)', () => {
  it('completes a batch whose listings are stored before the API call returns', async () => {
    const { id, account_id } = await createTestKey();
    const redis = await testRedis();
    const auth = (await createKeyStore(redis, env.REDIS_KEY_PREFIX).findById(id))!;
    const batches = batchStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);
    let published: string | undefined;
    const outcome = await bulkCreate(
      {
        admission: admissionStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS),
        logger: createLogger('error'),
        // A stream that stores (and marks) the listings before the publish call even returns.
        async publish(head, items) {
          published = head.batch_id;
          await batches.markStored(
            account_id,
            head.batch_id,
            items.map((i) => i.listing_id),
          );
        },
      },
      auth,
      { listings: [sampleListing(), sampleListing()] },
    );
    expect(outcome.status).toBe(201);
    expect(published).toBe(outcome.response.batch_id);
    const batch = await batches.get(account_id, outcome.response.batch_id);
    expect(batch).toMatchObject({ status: 'completed', account_id, created: 2, stored: 2 });
  });

  it('error: leaves no batch record behind when the publish fails', async () => {
    const { id, account_id } = await createTestKey();
    const redis = await testRedis();
    const auth = (await createKeyStore(redis, env.REDIS_KEY_PREFIX).findById(id))!;
    const batches = batchStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);
    const attempted = await expectBrokerDownRejection(
      {
        admission: admissionStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS),
        logger: createLogger('error'),
      },
      auth,
    );
    expect(attempted).toBeDefined();
    expect(await batches.get(account_id, attempted!)).toBeNull();
  });

  it('error: logs a compensating step that fails too, naming the step and the batch', async () => {
    const { id, account_id } = await createTestKey();
    const redis = await testRedis();
    const auth = (await createKeyStore(redis, env.REDIS_KEY_PREFIX).findById(id))!;
    const admission = admissionStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);
    const lines: Record<string, unknown>[] = [];
    const attempted = await expectBrokerDownRejection(
      {
        // The claims cannot be released (Redis went away after claiming, say).
        admission: { ...admission, abandon: async () => Promise.reject(new Error('connection lost')) },
        logger: createLogger('debug', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
      },
      auth,
    );
    expect(lines.filter((l) => l.msg === 'bulk create: compensating step failed')).toEqual([
      expect.objectContaining({
        level: 'warn',
        step: 'release claims, quota and batch record',
        batch_id: attempted,
        account_id,
        error: 'Error: connection lost',
      }),
    ]);
  });
});

describe('batch visibility by mode (security)', () => {
  it("shows a batch to its mode's keys and to the key that created it, to no other key", async () => {
    const live = await createTestKey();
    const otherLive = await createTestKey({ accountId: live.account_id });
    const test = await createTestKey({ mode: 'test', accountId: live.account_id });
    const get = (key: string, id: string) => api('GET', `/api/v1/listings/batches/${id}`, { key });
    const post = (key: string, body: object) => api('POST', '/api/v1/listings/bulk', { key, body });

    const liveBatch = (await post(live.key, { listings: [sampleListing()] })).body.batch_id as string;
    const testBatch = (await post(test.key, { listings: [sampleListing()] })).body.batch_id as string;
    const flagged = (await post(live.key, { listings: [sampleListing()], test_mode: true })).body
      .batch_id as string;

    expect((await get(otherLive.key, liveBatch)).status).toBe(200);
    expect((await get(test.key, testBatch)).status).toBe(200);
    expect((await get(live.key, flagged)).status).toBe(200); // its creator
    for (const [key, id] of [
      [test.key, liveBatch],
      [live.key, testBatch],
      [otherLive.key, testBatch],
      [otherLive.key, flagged],
    ] as const) {
      const hidden = await get(key, id);
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe('not_found');
    }
  });
});
