// A publish is acknowledged only when Kafka acknowledged every partition it wrote to, and a listing
// counts as seen (the duplicate fast path) only once its message is known written. The broker is
// real; what kafkajs does when a partition's leader dies mid-send (resolve without that partition,
// its messages unwritten) is reproduced by a producer that leaves one partition's messages out of
// the request. The 3-broker test that kills the real leader is test/cluster/kafka-partition-coverage.
import { randomUUID } from 'node:crypto';
import { Partitioners, type Admin, type Message, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { createKafka } from '../../common/clients/kafka.ts';
import { coveredProducer, recordingPartitioner } from '../../common/clients/kafka-covered-send.ts';
import { encodeListingBatch } from '../../common/domain/messages.ts';
import { AppError } from '../../common/errors.ts';
import { createLogger } from '../../common/logger.ts';
import { bulkCreate, type BulkCreateDeps } from '../../ingest/listings/bulk-create.ts';
import { admissionStore } from '../../ingest/listings/admission.ts';
import { coalescingPublisher } from '../../ingest/publisher.ts';
import { env, sampleListing, testRedis } from '../support/api.ts';

const kafka = createKafka(env.KAFKA_BROKERS, 'partition-coverage-tests', createLogger('error'));
let admin: Admin;
const topics: string[] = [];
const producers: Producer[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  await Promise.all(producers.map((p) => p.disconnect()));
  if (topics.length) await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
});

async function freshTopic(partitions: number): Promise<string> {
  const topic = `test.coverage.${randomUUID().slice(0, 8)}`;
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: partitions }] });
  topics.push(topic);
  return topic;
}

/**
 * A real producer whose first `times` sends leave out the messages `lose` picks, as kafkajs does
 * with a partition whose leader moved to a broker that already answered: the send resolves, the
 * result has no entry for that partition, and its messages were never written.
 */
function losingProducer(lose: (m: Message) => boolean, times: number): () => Producer {
  return () => {
    const real = kafka.producer({
      idempotent: false,
      allowAutoTopicCreation: false,
      createPartitioner: recordingPartitioner(Partitioners.DefaultPartitioner),
    });
    let left = times;
    return {
      ...real,
      async sendBatch(batch) {
        if (left-- <= 0) return real.sendBatch(batch);
        const kept = (batch.topicMessages ?? []).map(({ topic, messages }) => ({
          topic,
          messages: messages.filter((m) => !lose(m)),
        }));
        return real.sendBatch({ ...batch, topicMessages: kept.filter((t) => t.messages.length) });
      },
    };
  };
}

async function highWatermarks(topic: string): Promise<number[]> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.sort((a, b) => a.partition - b.partition).map((o) => Number(o.high));
}

describe('a publish resolves only when every partition is written', () => {
  it('happy: a send that came back without a partition is completed by re-sending that partition', async () => {
    const topic = await freshTopic(2);
    const producer = await coveredProducer(
      losingProducer((m) => m.partition === 1, 1),
      { idempotent: false },
    );
    producers.push(producer);
    const publisher = coalescingPublisher(producer);
    const message = (partition: number) => ({ partition, key: randomUUID(), value: randomUUID() });
    await publisher.publish(topic, [message(0), message(1), message(1), message(0), message(1)]);
    expect(await highWatermarks(topic)).toEqual([2, 3]);
  });
});

describe('listings are seen only once their message is written', () => {
  it('error: a publish Kafka never acknowledges answers 503 and leaves the listings to the retry, which creates them', async () => {
    const redis = await testRedis();
    const prefix = env.REDIS_KEY_PREFIX;
    const topic = await freshTopic(1);
    const auth: ApiKeyRecord = {
      id: randomUUID(),
      account_id: `acct-coverage-${randomUUID().slice(0, 8)}`,
      mode: 'live',
      tier: 'pro',
      role: 'standard',
      name: 'coverage',
      status: 'active',
      rate_limit: 600,
      prefix: 'rls_live_test',
      created_at: new Date().toISOString(),
    } as ApiKeyRecord;
    const depsWith = async (producerFactory: () => Producer): Promise<BulkCreateDeps> => {
      const producer = await coveredProducer(producerFactory, { idempotent: false });
      producers.push(producer);
      const publisher = coalescingPublisher(producer);
      return {
        admission: admissionStore(redis, prefix, env.REDIS_GLOBAL_PARTS),
        logger: createLogger('error'),
        publish: (head, items) =>
          publisher.publish(
            topic,
            encodeListingBatch(head, items).map((value) => ({ key: head.batch_id, value })),
          ),
      };
    };
    const listings = Array.from({ length: 5 }, () => sampleListing());

    // Every send leaves the request's only partition out: nothing is ever acknowledged.
    const lost = await depsWith(losingProducer(() => true, Infinity));
    const failure = await bulkCreate(lost, auth, { listings }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'dependency_unavailable' });
    expect(await highWatermarks(topic)).toEqual([0]);

    const working = await depsWith(losingProducer(() => false, 0));
    const retry = await bulkCreate(working, auth, { listings });
    expect(retry.response.summary).toMatchObject({ total: 5, created: 5, duplicates: 0 });
    expect((await highWatermarks(topic))[0]).toBeGreaterThan(0);
  });
});
