// `npm run topics` on the 3-broker cluster: replication 3 and min.insync.replicas 2 by default,
// a single replica refused unless asked for explicitly, and an existing topic weaker than
// documented reported.
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { topicDefinitions } from '../../common/topics.ts';
import { env } from '../support/api.ts';
import { npmRun } from '../support/npm-run.ts';
import { expectClusterStack } from '../support/cluster.ts';

const topics = (extra: Record<string, string>) => npmRun('topics', extra);

describe('npm run topics on a cluster', () => {
  it('happy: replication 3 and min.insync.replicas 2 from the cluster, without settings', async () => {
    expectClusterStack();
    const prefix = `rf${randomUUID().slice(0, 8)}.`;
    const first = await topics({ KAFKA_TOPIC_PREFIX: prefix, KAFKA_PARTITIONS: '2' });
    expect(first.code, first.stderr).toBe(0);
    for (const name of Object.keys(topicDefinitions))
      expect(first.stdout).toContain(
        `topics: created ${prefix}${name} (2 partitions, replication 3, min.insync.replicas 2)\n`,
      );
    expect(first.stderr).not.toContain('warning');
  });

  it('error: replication 1 on three brokers is refused unless KAFKA_ALLOW_SINGLE_REPLICA=1', async () => {
    const prefix = `one${randomUUID().slice(0, 8)}.`;
    const refused = await topics({ KAFKA_TOPIC_PREFIX: prefix, KAFKA_REPLICATION_FACTOR: '1' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^topics: failed: replication factor 1 on a cluster of 3 brokers .*KAFKA_ALLOW_SINGLE_REPLICA=1/,
    );
    const allowed = await topics({
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_REPLICATION_FACTOR: '1',
      KAFKA_ALLOW_SINGLE_REPLICA: '1',
      KAFKA_PARTITIONS: '1',
    });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain(`replication 1, min.insync.replicas 1)`);
    // Existing topics with one replica are reported as weaker than the cluster's default.
    const again = await topics({ KAFKA_TOPIC_PREFIX: prefix });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      `topics: warning: ${prefix}rls.listings.v1 has 1 replicas per partition, fewer than 3`,
    );
  });

  it('a topic with min.insync.replicas 1 at replication 3 is reported as weaker than documented', async () => {
    const prefix = `isr${randomUUID().slice(0, 8)}.`;
    const admin = new Kafka({
      clientId: 'rls-cluster-tests',
      brokers: env.KAFKA_BROKERS,
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic: `${prefix}rls.listings.v1`,
            numPartitions: 1,
            replicationFactor: 3,
            configEntries: [{ name: 'min.insync.replicas', value: '1' }],
          },
        ],
      });
    } finally {
      await admin.disconnect();
    }
    const result = await topics({ KAFKA_TOPIC_PREFIX: prefix, KAFKA_PARTITIONS: '1' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `topics: warning: ${prefix}rls.listings.v1 has min.insync.replicas=1, weaker than the documented 2 for 3 replicas`,
    );
    // The topics it created itself are as documented: no warning about them.
    expect(result.stderr.match(/warning/g)).toHaveLength(1);
  });
});
