// Creates the topics of topics.json that do not exist yet (partitions and retention as defined).
import type { Kafka } from 'kafkajs';
import { topicDefinitions } from '../../common/topics.ts';

export async function createTopics(kafka: Kafka, prefix: string): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = Object.entries(topicDefinitions).filter(([name]) => !existing.has(prefix + name));
    if (missing.length) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map(([name, def]) => ({
          topic: prefix + name,
          numPartitions: def.partitions,
          replicationFactor: 1,
          configEntries: [{ name: 'retention.ms', value: String(def.retentionHours * 3_600_000) }],
        })),
      });
    }
    return missing.map(([name]) => prefix + name);
  } finally {
    await admin.disconnect();
  }
}
