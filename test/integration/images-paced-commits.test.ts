// The image process commits each partition at most once a second (stream/commit-pacer.ts): the
// last messages of a burst are committed by its timer even when no later batch comes, so the
// group's committed offset reaches the end of the partition and a restart does not read them again.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createKafka } from '../../common/clients/kafka.ts';
import { NO_IMAGES_HEADER } from '../../common/domain/messages.ts';
import { sharedEnvSchema, parseEnv } from '../../common/env.ts';
import { createLogger } from '../../common/logger.ts';
import { topicName } from '../../common/topics.ts';
import { imageCheckerGroupId } from '../../stream/images/checker.ts';
import { env, eventually, sampleListing } from '../support/api.ts';
import { closeProducer, listingMessage, publish } from '../support/stream.ts';
import { setTimeout as sleep } from 'node:timers/promises';

afterAll(closeProducer);

const groupEnv = parseEnv(sharedEnvSchema.pick({ STREAM_GROUP_PREFIX: true, KAFKA_TOPIC_PREFIX: true }));

describe('image process commits (happy)', () => {
  it('commits the tail of a burst of skipped messages without a later batch', async () => {
    const account = `acct_paced_${randomUUID().slice(0, 8)}`;
    const marked = () => ({
      key: account, // one key: one partition
      value: JSON.stringify(listingMessage(account, sampleListing())),
      headers: { [NO_IMAGES_HEADER]: '0' },
    });
    // Three sends a little apart, so the image process meets them in more than one batch and the
    // later ones fall within the interval of the first one's commit.
    let last = { partition: -1, offset: -1n };
    for (let send = 0; send < 3; send++) {
      const [written] = await publish('rls.listings.v1', Array.from({ length: 5 }, marked));
      last = { partition: written!.partition, offset: BigInt(written!.baseOffset!) + 4n };
      await sleep(150);
    }

    const admin = createKafka(env.KAFKA_BROKERS, 'paced-commits-test', createLogger('error')).admin();
    await admin.connect();
    try {
      const committed = await eventually(
        async () => {
          const [topic] = await admin.fetchOffsets({
            groupId: imageCheckerGroupId(groupEnv),
            topics: [topicName(groupEnv.KAFKA_TOPIC_PREFIX, 'rls.listings.v1')],
          });
          const offset = BigInt(topic!.partitions.find((p) => p.partition === last.partition)!.offset);
          return offset > last.offset ? offset : undefined;
        },
        15_000,
        'the image group committed past the last message',
      );
      expect(committed).toBeGreaterThan(last.offset);
    } finally {
      await admin.disconnect();
    }
  });
});
