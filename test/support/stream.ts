// Helpers of the stream tests: publish raw messages to the stream's topics (as a producer outside
// the service would), and read what the stream stored (every value as a query parameter).
import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import { createKafka, createProducer } from '../../common/clients/kafka.ts';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { createLogger } from '../../common/logger.ts';
import { topicName, type TopicName } from '../../common/topics.ts';
import { api, env, sampleListing, testClickHouse } from './api.ts';

let producer: Producer | undefined;
export async function publish(
  topic: TopicName,
  messages: { key: string; value: string | Buffer; headers?: Record<string, string> }[],
) {
  producer ??= await createProducer(createKafka(env.KAFKA_BROKERS, 'stream-tests', createLogger('error')));
  return producer.send({ topic: topicName(env.KAFKA_TOPIC_PREFIX, topic), messages });
}

export async function closeProducer() {
  await producer?.disconnect();
  producer = undefined;
}

/** A listing message as the ingest API publishes it (common/domain/messages.ts). */
export function listingMessage(
  accountId: string,
  listing: Record<string, unknown>,
  listingId = randomUUID(),
) {
  return {
    v: 1,
    listing_id: listingId,
    account_id: accountId,
    batch_id: randomUUID(),
    is_test: false,
    received_at: new Date().toISOString(),
    listing: { currency: 'TZS', ...listing },
  };
}

/** Rows of a static statement; values only as `{name:Type}` placeholders filled from `params`. */
export async function rows<T>(query: string, params?: Record<string, unknown>): Promise<T[]> {
  return queryRows<T>(testClickHouse(), query, params);
}

/** Stored rows per listing id, without FINAL: exactly-once means 1 for every id. */
export async function storedCounts(ids: string[]): Promise<Map<string, number>> {
  const counts = new Map(ids.map((id) => [id, 0]));
  for (let i = 0; i < ids.length; i += 2_000) {
    const chunk = ids.slice(i, i + 2_000);
    const found = await rows<{ id: string; c: string }>(
      `SELECT toString(listing_id) AS id, count() AS c FROM listings
       WHERE listing_id IN {ids:Array(UUID)} GROUP BY listing_id`,
      { ids: chunk },
    );
    for (const r of found) counts.set(r.id, Number(r.c));
  }
  return counts;
}

/** POSTs `n` listings in requests of 100; returns the ids of the accepted ones. */
export async function createListings(key: string, n: number, overrides: Record<string, unknown> = {}) {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 100) {
    const listings = Array.from({ length: Math.min(100, n - i) }, () => sampleListing(overrides));
    const response = await api('POST', '/api/v1/listings/bulk', { key, body: { listings } });
    if (response.status !== 201) continue;
    for (const r of response.body.results) if (r.success) ids.push(r.listing_id as string);
  }
  return ids;
}
