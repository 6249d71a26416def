// POST /events/views (contract, "View events"): per-index rejections, event_id dedupe, test mode,
// and the messages on rls.views.v1.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKafka } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { topicName } from '../../common/topics.ts';
import { api, createTestKey, env } from '../support/api.ts';

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
    const listingId = randomUUID();
    const now = Date.now();
    const response = await api('POST', '/api/v1/events/views', {
      key,
      body: {
        events: [
          { listing_id: listingId },
          { listing_id: listingId, viewed_at: new Date(now - 3_600_000).toISOString(), event_id: 'ev-1' },
          { listing_id: 'nope' },
          { listing_id: listingId, viewed_at: new Date(now + 86_400_000).toISOString() },
          { listing_id: listingId, viewed_at: new Date(now - 400 * 86_400_000).toISOString() },
          { listing_id: listingId, referrer: 'x' },
        ],
      },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ accepted: 2, duplicates: 0, test_mode: false });
    const rejected = Object.fromEntries(
      response.body.rejected.map((r: { index: number; errors: { code: string }[] }) => [
        r.index,
        r.errors.map((e) => e.code),
      ]),
    );
    expect(rejected).toEqual({
      2: ['invalid_uuid'],
      3: ['in_future'],
      4: ['too_old'],
      5: ['unknown_field'],
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
    const listingId = randomUUID();
    const events = [
      { listing_id: listingId, event_id: 'a' },
      { listing_id: listingId, event_id: 'a' },
      { listing_id: listingId, event_id: 'b' },
    ];
    const first = await api('POST', '/api/v1/events/views', { key, body: { events } });
    expect(first.body).toMatchObject({ accepted: 2, duplicates: 1, rejected: [], test_mode: true });
    const again = await api('POST', '/api/v1/events/views', { key, body: { events } });
    expect(again.body).toMatchObject({ accepted: 0, duplicates: 3 });
    const messages = await viewMessages(account_id, 2);
    expect(messages.map((m) => m.event_id).sort()).toEqual(['a', 'b']);
    expect(messages.every((m) => m.is_test === true)).toBe(true);
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
