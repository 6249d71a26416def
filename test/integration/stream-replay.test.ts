// The replay guard at item level: a listings message (v2) holds every listing of one request, and a
// replay must skip exactly the items already stored at their (offset, item) position, no more, no
// less. Runs the real listings consumer (offset-consumer + listings handler) in this process on a
// topic of its own, against the real broker and ClickHouse, so it never races the stack's workers.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Kafka, Producer } from 'kafkajs';
import { createKafka, createProducer } from '../../common/clients/kafka.ts';
import { encodeListingBatch } from '../../common/domain/messages.ts';
import { listingSchema } from '../../common/domain/listing.ts';
import { createLogger } from '../../common/logger.ts';
import { listingsTable } from '../../common/warehouse/listings.ts';
import { quarantineTable } from '../../common/warehouse/quarantine.ts';
import type { WarehouseTable } from '../../common/warehouse/table.ts';
import { fxTable } from '../../stream/enrich/fx.ts';
import { createListingsHandler } from '../../stream/listings/handler.ts';
import { listingOwners } from '../../stream/listings/owners.ts';
import { startOffsetConsumer, type RunningConsumer } from '../../stream/offset-consumer.ts';
import { createClickHouseWriter } from '../../stream/sink/clickhouse-writer.ts';
import { createQuarantine } from '../../stream/sink/quarantine.ts';
import { env, eventually, sampleListing, testClickHouse, testRedis } from '../support/api.ts';
import { rows, storedCounts } from '../support/stream.ts';

const logger = createLogger('error');
let kafka: Kafka | undefined;
let producer: Producer | undefined;
const topics: string[] = [];

afterAll(async () => {
  await producer?.disconnect();
  if (kafka && topics.length) {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  }
});

/** A one-partition topic of this test only: stored rows are told apart by their `_topic`. */
async function ownTopic(): Promise<string> {
  kafka ??= createKafka(env.KAFKA_BROKERS, 'stream-replay-tests', logger);
  producer ??= await createProducer(kafka);
  const topic = `${env.KAFKA_TOPIC_PREFIX}test.replay.${randomUUID().slice(0, 8)}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    waitForLeaders: true,
    topics: [topic, `${topic}.deadletter`].map((name) => ({ topic: name, numPartitions: 1 })),
  });
  await admin.disconnect();
  topics.push(topic, `${topic}.deadletter`);
  return topic;
}

async function runListingsConsumer(topic: string, marked: Map<string, string[]>): Promise<RunningConsumer> {
  const clickhouse = testClickHouse();
  const redis = await testRedis();
  const writer = <Row extends object>(table: WarehouseTable<Row>) =>
    createClickHouseWriter(clickhouse, { table, maxRows: 1_000, maxDelayMs: 50, logger });
  const listingsWriter = writer(listingsTable);
  const quarantineWriter = writer(quarantineTable);
  return startOffsetConsumer({
    kafka: kafka!,
    clickhouse,
    groupId: `${topic}.sink`,
    topic,
    provenanceTables: [listingsTable, quarantineTable],
    handler: createListingsHandler({
      owners: listingOwners(redis, env.REDIS_KEY_PREFIX),
      writer: listingsWriter,
      quarantine: createQuarantine(quarantineWriter, producer!, `${topic}.deadletter`, 'listings'),
      fx: fxTable(),
      // The batch bookkeeping (Redis) is not under test here: record what would be marked.
      async markStored(_accountId, batchId, ids) {
        marked.set(batchId, [...(marked.get(batchId) ?? []), ...ids]);
      },
    }),
    writers: [listingsWriter, quarantineWriter],
    logger,
  });
}

describe('stream: replay of a multi-listing message', () => {
  it('happy: skips exactly the items stored at their position, stores the others once, and marks all in the batch', async () => {
    const topic = await ownTopic();
    const accountId = `replay-${randomUUID().slice(0, 8)}`;
    const batchId = randomUUID();
    const items = [0, 1, 2].map(() => ({
      listing_id: randomUUID(),
      listing: listingSchema.parse(sampleListing()),
    }));
    const head = {
      account_id: accountId,
      batch_id: batchId,
      is_test: false,
      received_at: new Date().toISOString(),
    };
    const [value] = encodeListingBatch(head, items);
    const [sent] = await producer!.send({ topic, messages: [{ key: batchId, value: value! }] });
    const offset = sent!.baseOffset!;
    // As if an earlier worker had stored item 1 (here: quarantined it) and died before its commit.
    // Item 1 is valid and its id is not in `listings`, so only the position guard can skip it.
    await testClickHouse().insert({
      table: 'quarantine',
      format: 'JSONEachRow',
      values: [
        {
          quarantined_at: new Date().toISOString(),
          source: 'listings',
          error: 'stored by an earlier run (test)',
          payload: accountId,
          _topic: topic,
          _partition: 0,
          _offset: offset,
          _item: 1,
        },
      ],
    });

    const marked = new Map<string, string[]>();
    const consumer = await runListingsConsumer(topic, marked);
    try {
      const ids = items.map((i) => i.listing_id);
      await eventually(
        async () => ((marked.get(batchId)?.length ?? 0) >= 3 ? true : undefined),
        30_000,
        'the batch marked',
      );
      const counts = await storedCounts(ids);
      expect([counts.get(ids[0]!), counts.get(ids[1]!), counts.get(ids[2]!)]).toEqual([1, 0, 1]);
      const positions = await rows<{ item: number; offset: string }>(
        `SELECT _item AS item, toString(_offset) AS offset FROM listings
         WHERE _topic = {topic:String} ORDER BY _item`,
        { topic },
      );
      expect(positions).toEqual([
        { item: 0, offset },
        { item: 2, offset },
      ]);
      // The skipped item is still marked (its side effects are redone on replay; idempotent).
      expect([...marked.get(batchId)!].sort()).toEqual([...ids].sort());
    } finally {
      await consumer.stop();
    }
  }, 60_000);

  it('error: a bad item is quarantined alone, as a standalone v1 message; its siblings are stored', async () => {
    const topic = await ownTopic();
    const accountId = `replay-${randomUUID().slice(0, 8)}`;
    const head = {
      account_id: accountId,
      batch_id: randomUUID(),
      is_test: false,
      received_at: new Date().toISOString(),
    };
    const good = [0, 1].map(() => ({
      listing_id: randomUUID(),
      listing: listingSchema.parse(sampleListing()),
    }));
    const badId = randomUUID();
    // Not producible through the API (it validates first), but another producer could write it.
    const bad = { listing_id: badId, listing: { ...sampleListing(), price: -5 } } as never;
    const [value] = encodeListingBatch(head, [good[0]!, bad, good[1]!]);
    await producer!.send({ topic, messages: [{ key: head.batch_id, value: value! }] });

    const consumer = await runListingsConsumer(topic, new Map());
    try {
      const quarantined = await eventually(
        async () => {
          const [row] = await rows<{ item: number; error: string; payload: string }>(
            'SELECT _item AS item, error, payload FROM quarantine WHERE _topic = {topic:String}',
            { topic },
          );
          return row;
        },
        30_000,
        'the bad item quarantined',
      );
      expect(quarantined.item).toBe(1);
      expect(quarantined.error).toMatch(/listing\.price/);
      expect(JSON.parse(quarantined.payload)).toMatchObject({
        v: 1,
        listing_id: badId,
        account_id: accountId,
        batch_id: head.batch_id,
        listing: { price: -5 },
      });
      const counts = await eventually(async () => {
        const c = await storedCounts(good.map((g) => g.listing_id));
        return [...c.values()].every((n) => n === 1) ? c : undefined;
      }, 30_000);
      expect([...counts.values()]).toEqual([1, 1]);
      expect((await storedCounts([badId])).get(badId)).toBe(0);
    } finally {
      await consumer.stop();
    }
  }, 60_000);
});
