// Creates the topics of topics.json that do not exist yet (partitions and retention as defined;
// partitions and replication factor overridable for a production cluster). Never alters a topic.
import type { Kafka } from 'kafkajs';
import { topicDefinitions } from '../../common/topics.ts';

export interface TopicOptions {
  /** Overrides every topic's partition count from topics.json. */
  partitions?: number;
  /** 1 for the local single broker; 3 is usual in production. */
  replicationFactor?: number;
  /** One line per topic: created, or existing with its partition count. */
  log?: (message: string) => void;
}

export async function createTopics(
  kafka: Kafka,
  prefix: string,
  options: TopicOptions = {},
): Promise<string[]> {
  const replicationFactor = options.replicationFactor ?? 1;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const wanted = Object.entries(topicDefinitions).map(([name, def]) => ({
      topic: prefix + name,
      numPartitions: options.partitions ?? def.partitions,
      replicationFactor,
      configEntries: [{ name: 'retention.ms', value: String(def.retentionHours * 3_600_000) }],
    }));
    const missing = wanted.filter((topic) => !existing.has(topic.topic));
    if (missing.length) await admin.createTopics({ waitForLeaders: true, topics: missing });
    if (options.log) {
      const present = wanted.filter((topic) => existing.has(topic.topic)).map((topic) => topic.topic);
      const metadata = present.length ? await admin.fetchTopicMetadata({ topics: present }) : { topics: [] };
      for (const topic of metadata.topics)
        options.log(`exists ${topic.name} (${topic.partitions.length} partitions; left unchanged)`);
      for (const topic of missing)
        options.log(
          `created ${topic.topic} (${topic.numPartitions} partitions, replication ${topic.replicationFactor})`,
        );
    }
    return missing.map((topic) => topic.topic);
  } finally {
    await admin.disconnect();
  }
}
