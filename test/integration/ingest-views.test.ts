// POST /events/views (contract, "View events"): per-index rejections, event_id dedupe, test mode,
// the messages on rls.views.v1; views only of the caller's own listings unless it is the portal,
// at most 3 counted per listing, viewer and day, and no Redis key per event.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKafka } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { topicName } from '../../common/topics.ts';
import { createKeyStore } from '../../common/auth/key-store.ts';
import { listingOwnership } from '../../ingest/views/ownership.ts';
import { recordViews } from '../../ingest/views/record-views.ts';
import { viewGuard } from '../../ingest/views/view-guard.ts';
import { api, createTestKey, env, sampleListing, testClickHouse, testRedis } from '../support/api.ts';

/** Listings of the key's account (in its mode), created through the API: views may name them at once. */
async function ownListings(key: string, count = 1): Promise<string[]> {
  const listings = Array.from({ length: count }, () => sampleListing());
  const created = await api('POST', '/api/v1/listings/bulk', { key, body: { listings } });
  expect(created.status).toBe(201);
  return created.body.results.map((r: { listing_id: string }) => r.listing_id);
}

const postViews = (key: string, events: object[], extra: object = {}) =>
  api('POST', '/api/v1/events/views', { key, body: { events, ...extra } });

const codesByIndex = (rejected: { index: number; errors: { code: string }[] }[]) =>
  Object.fromEntries(rejected.map((r) => [r.index, r.errors.map((e) => e.code)]));

/** The messages of `accountId` on the views topic, read from the beginning by a fresh group. */
async function viewMessages(accountId: string, expected: number): Promise<Record<string, unknown>[]> {
  const kafka = createKafka(env.KAFKA_BROKERS, 'ingest-views-test', createLogger('error'));
  const consumer = kafka.consumer({ groupId: `ingest-views-test-${randomUUID()}` });
  const found: Record<string, unknown>[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic: topicName(env.KAFKA_TOPIC_PREFIX, 'rls.views.v1'), fromBeginning: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`found ${found.length} of ${expected}`)), 30_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          const value = JSON.parse(message.value!.toString()) as Record<string, unknown>;
          if (value.account_id === accountId) found.push(value);
          if (found.length >= expected) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return found;
}

describe('view events (happy)', () => {
  it('accepts valid events (202), rejects invalid ones by index, publishes to rls.views.v1', async () => {
    const { key, account_id } = await createTestKey();
    const [listingId] = await ownListings(key);
    const now = Date.now();
    const response = await postViews(key, [
      { listing_id: listingId },
      { listing_id: listingId, viewed_at: new Date(now - 3_600_000).toISOString(), event_id: 'ev-1' },
      { listing_id: 'nope' },
      { listing_id: listingId, viewed_at: new Date(now + 86_400_000).toISOString() },
      { listing_id: listingId, viewed_at: new Date(now - 400 * 86_400_000).toISOString() },
      { listing_id: listingId, referrer: 'x' },
      { viewer_id: 'no-listing' }, // valid by the document's schema, rejected on its own
    ]);
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ accepted: 2, duplicates: 0, test_mode: false });
    expect(codesByIndex(response.body.rejected)).toEqual({
      2: ['invalid_uuid'],
      3: ['in_future'],
      4: ['too_old'],
      5: ['unknown_field'],
      6: ['required'],
    });
    const messages = await viewMessages(account_id, 2);
    expect(messages).toHaveLength(2);
    const byId = messages.find((m) => m.event_id === 'ev-1')!;
    expect(byId).toMatchObject({ v: 1, listing_id: listingId, is_test: false });
    const generated = messages.find((m) => m.event_id !== 'ev-1')!;
    expect(generated.event_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('skips repeated client event ids (within a request and across requests); test keys mark is_test', async () => {
    const { key, account_id } = await createTestKey({ mode: 'test' });
    const [listingId] = await ownListings(key);
    const events = [
      { listing_id: listingId, event_id: 'a', viewer_id: 'v1' },
      { listing_id: listingId, event_id: 'a', viewer_id: 'v1' },
      { listing_id: listingId, event_id: 'b', viewer_id: 'v2' },
    ];
    const first = await postViews(key, events);
    expect(first.body).toMatchObject({ accepted: 2, duplicates: 1, rejected: [], test_mode: true });
    const again = await postViews(key, events);
    expect(again.body).toMatchObject({ accepted: 0, duplicates: 3, rejected: [] });
    const messages = await viewMessages(account_id, 2);
    expect(messages.map((m) => m.event_id).sort()).toEqual(['a', 'b']);
    expect(messages.every((m) => m.is_test === true)).toBe(true);
  });

  it("lets a portal key post views of any account's listings, and of listings not stored yet", async () => {
    const owner = await createTestKey();
    const [listingId] = await ownListings(owner.key);
    const portal = await createTestKey({ role: 'portal' });
    const response = await postViews(portal.key, [
      { listing_id: listingId, viewer_id: 'session-1' },
      { listing_id: randomUUID(), viewer_id: 'session-1' },
    ]);
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ accepted: 2, rejected: [] });
  });
});

describe('view events (security)', () => {
  it("rejects views of another account's listings, of unknown ids and of the other mode as not_found", async () => {
    const owner = await createTestKey();
    const [theirs] = await ownListings(owner.key);
    const other = await createTestKey();
    const [mine] = await ownListings(other.key);
    const sameAccountTest = await createTestKey({ mode: 'test', accountId: owner.account_id });
    const fromOther = await postViews(other.key, [
      { listing_id: theirs },
      { listing_id: randomUUID() },
      { listing_id: mine },
    ]);
    expect(fromOther.status).toBe(202);
    expect(fromOther.body.accepted).toBe(1);
    expect(codesByIndex(fromOther.body.rejected)).toEqual({ 0: ['not_found'], 1: ['not_found'] });
    expect(fromOther.body.rejected[0].errors[0].field).toBe('listing_id');
    const otherMode = await postViews(sameAccountTest.key, [{ listing_id: theirs }]);
    expect(codesByIndex(otherMode.body.rejected)).toEqual({ 0: ['not_found'] });
    const flagged = await postViews(owner.key, [{ listing_id: theirs }], { test_mode: true });
    expect(codesByIndex(flagged.body.rejected)).toEqual({ 0: ['not_found'] });
  });

  it('counts at most 3 views of a listing per viewer and UTC day, across requests', async () => {
    const { key } = await createTestKey();
    const [listingId] = await ownListings(key);
    const view = (extra: object = {}) => ({ listing_id: listingId, ...extra });
    // Without viewer_id the key is the viewer.
    const first = await postViews(key, [view(), view(), view(), view(), view()]);
    expect(first.body.accepted).toBe(3);
    expect(codesByIndex(first.body.rejected)).toEqual({ 3: ['view_cap_reached'], 4: ['view_cap_reached'] });
    const later = await postViews(key, [view()]);
    expect(later.body).toMatchObject({ accepted: 0, rejected: [{ index: 0 }] });
    // Other viewers, and another day of the same viewer, count on their own.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    const others = await postViews(key, [
      view({ viewer_id: 'alice' }),
      view({ viewer_id: 'alice' }),
      view({ viewer_id: 'bob' }),
      view({ viewed_at: yesterday }),
    ]);
    expect(others.body).toMatchObject({ accepted: 4, rejected: [] });
  });

  it('keeps no Redis key per view event', async () => {
    const { key, account_id } = await createTestKey();
    const [listingId] = await ownListings(key);
    const events = Array.from({ length: 1_000 }, (_, i) => ({
      listing_id: listingId,
      event_id: `e-${i}`,
      viewer_id: `v-${i}`,
    }));
    const response = await postViews(key, events);
    expect(response.body.accepted).toBe(1_000);
    const redis = await testRedis();
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(
        cursor,
        'MATCH',
        `${env.REDIS_KEY_PREFIX}*${account_id}*`,
        'COUNT',
        10_000,
      );
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    // The day's quota hash, the guard's buckets and the usage/seen/batch records of the setup.
    expect(keys.length).toBeLessThan(40);
    expect(keys.filter((k) => k.includes(':view:'))).toEqual([]);
  });
});

describe('view events when Kafka fails (error)', () => {
  it('records nothing for a failed publish: the retry is accepted, not taken for a duplicate', async () => {
    const { id } = await createTestKey({ role: 'portal' });
    const redis = await testRedis();
    const auth = (await createKeyStore(redis, env.REDIS_KEY_PREFIX).findById(id))!;
    const deps = (publish: () => Promise<void>) => ({
      guard: viewGuard(redis, env.REDIS_KEY_PREFIX),
      ownership: listingOwnership({
        clickhouse: testClickHouse(),
        redis,
        prefix: env.REDIS_KEY_PREFIX,
        parts: env.REDIS_GLOBAL_PARTS,
      }),
      publish,
      logger: createLogger('error', {}, () => undefined),
    });
    const body = { events: [{ listing_id: randomUUID(), event_id: 'once', viewer_id: 'v' }] };
    const failed = recordViews(
      deps(async () => {
        throw new Error('broker down');
      }),
      auth,
      body,
    );
    await expect(failed).rejects.toMatchObject({ code: 'dependency_unavailable' });
    const retried = await recordViews(
      deps(async () => undefined),
      auth,
      body,
    );
    expect(retried).toMatchObject({ accepted: 1, duplicates: 0, rejected: [] });
  });

  it('logs the event ids whose claims could not be given back after a failed publish', async () => {
    const { id } = await createTestKey({ role: 'portal' });
    const redis = await testRedis();
    const auth = (await createKeyStore(redis, env.REDIS_KEY_PREFIX).findById(id))!;
    const lines: string[] = [];
    const guard = viewGuard(redis, env.REDIS_KEY_PREFIX);
    const failed = recordViews(
      {
        guard: {
          admit: guard.admit,
          release: async () => {
            throw new Error('redis down');
          },
        },
        ownership: listingOwnership({
          clickhouse: testClickHouse(),
          redis,
          prefix: env.REDIS_KEY_PREFIX,
          parts: env.REDIS_GLOBAL_PARTS,
        }),
        publish: async () => {
          throw new Error('broker down');
        },
        logger: createLogger('warn', {}, (line) => lines.push(line)),
      },
      auth,
      { events: [{ listing_id: randomUUID(), event_id: 'lost-claim', viewer_id: 'v' }] },
    );
    await expect(failed).rejects.toMatchObject({ code: 'dependency_unavailable' });
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'view event claims not released after a failed publish',
        account_id: auth.account_id,
        event_ids: ['lost-claim'],
      }),
    );
  });
});

describe('view events (error)', () => {
  it('refuses more than 1,000 events and malformed envelopes with 400', async () => {
    const { key } = await createTestKey();
    const tooMany = await api('POST', '/api/v1/events/views', {
      key,
      body: { events: Array.from({ length: 1001 }, () => ({ listing_id: randomUUID() })) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('too_many_events');
    const malformed = await api('POST', '/api/v1/events/views', { key, body: { views: [] } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('validation_failed');
    const noKey = await api('POST', '/api/v1/events/views', { body: { events: [] } });
    expect(noKey.status).toBe(401);
  });
});
