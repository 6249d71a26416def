// Creates the topics of topics.json that do not exist yet (partitions and retention as defined;
// partitions overridable). Never alters a topic. The replication factor comes from the cluster
// (min(3, brokers)) unless given; 1 on a cluster of several brokers is refused unless asked for
// explicitly, since one copy loses acknowledged messages when its broker's disk or process dies.
// Existing topics are checked against the documented durability and a shortfall is reported.
import kafkajs, { type Admin, type Kafka } from 'kafkajs';
import { topicDefinitions } from '../../common/topics.ts';

export interface TopicOptions {
  /** Overrides every topic's partition count from topics.json. */
  partitions?: number;
  /** Default: min(3, brokers in the cluster). */
  replicationFactor?: number;
  /** Allows a replication factor of 1 on a cluster of more than one broker. */
  allowSingleReplica?: boolean;
  /** One line per topic: created, or existing with its partition count. */
  log?: (message: string) => void;
  /** One line per existing topic weaker than documented (replicas, min.insync.replicas). */
  warn?: (message: string) => void;
}

/**
 * What a topic with `replicationFactor` copies should require in sync to acknowledge a write:
 * 2 of 3 (one broker may die without losing or refusing writes), else 1.
 */
export function documentedMinInsyncReplicas(replicationFactor: number): number {
  return replicationFactor >= 3 ? 2 : 1;
}

/** The replication factor to use on a cluster of `brokers`, or an error saying why not. */
export function chooseReplicationFactor(brokers: number, options: TopicOptions = {}): number {
  const factor = options.replicationFactor ?? Math.min(3, brokers);
  if (factor > brokers)
    throw new Error(
      `replication factor ${factor} needs at least ${factor} brokers; the cluster has ${brokers}`,
    );
  if (factor === 1 && brokers > 1 && !options.allowSingleReplica)
    throw new Error(
      `replication factor 1 on a cluster of ${brokers} brokers keeps one copy of each message; ` +
        'set KAFKA_ALLOW_SINGLE_REPLICA=1 if that is really wanted',
    );
  return factor;
}

export async function createTopics(
  kafka: Kafka,
  prefix: string,
  options: TopicOptions = {},
): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const brokers = (await admin.describeCluster()).brokers.length;
    const replicationFactor = chooseReplicationFactor(brokers, options);
    const minInsync = documentedMinInsyncReplicas(replicationFactor);
    const existing = new Set(await admin.listTopics());
    const wanted = Object.entries(topicDefinitions).map(([name, def]) => ({
      topic: prefix + name,
      numPartitions: options.partitions ?? def.partitions,
      replicationFactor,
      configEntries: [
        { name: 'retention.ms', value: String(def.retentionHours * 3_600_000) },
        { name: 'min.insync.replicas', value: String(minInsync) },
      ],
    }));
    const missing = wanted.filter((topic) => !existing.has(topic.topic));
    if (missing.length) await admin.createTopics({ waitForLeaders: true, topics: missing });
    const present = wanted.filter((topic) => existing.has(topic.topic)).map((topic) => topic.topic);
    if (present.length && options.warn) {
      for (const message of await durabilityShortfalls(admin, present, replicationFactor))
        options.warn(message);
    }
    if (options.log) {
      const metadata = present.length ? await admin.fetchTopicMetadata({ topics: present }) : { topics: [] };
      for (const topic of metadata.topics)
        options.log(`exists ${topic.name} (${topic.partitions.length} partitions; left unchanged)`);
      for (const topic of missing)
        options.log(
          `created ${topic.topic} (${topic.numPartitions} partitions, replication ${topic.replicationFactor}, ` +
            `min.insync.replicas ${minInsync})`,
        );
    }
    return missing.map((topic) => topic.topic);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Existing topics with fewer replicas than `replicationFactor`, or whose effective
 * `min.insync.replicas` (topic override or broker default) is below the documented value for
 * their own replica count: such a topic acknowledges writes that one dead broker can lose.
 */
export async function durabilityShortfalls(
  admin: Admin,
  topics: string[],
  replicationFactor: number,
): Promise<string[]> {
  const metadata = await admin.fetchTopicMetadata({ topics });
  const configs = await admin.describeConfigs({
    includeSynonyms: false,
    resources: topics.map((name) => ({
      type: kafkajs.ConfigResourceTypes.TOPIC,
      name,
      configNames: ['min.insync.replicas'],
    })),
  });
  const minInsyncOf = new Map(
    configs.resources.map((r) => [
      r.resourceName,
      Number(r.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue ?? 1),
    ]),
  );
  const messages: string[] = [];
  for (const topic of metadata.topics) {
    const replicas = Math.min(...topic.partitions.map((p) => p.replicas.length));
    const minInsync = minInsyncOf.get(topic.name) ?? 1;
    const documented = documentedMinInsyncReplicas(replicas);
    if (replicas < replicationFactor)
      messages.push(
        `${topic.name} has ${replicas} replicas per partition, fewer than ${replicationFactor}: ` +
          'add replicas with kafka-reassign-partitions',
      );
    if (minInsync < documented)
      messages.push(
        `${topic.name} has min.insync.replicas=${minInsync}, weaker than the documented ${documented} ` +
          `for ${replicas} replicas: a write acknowledged by one broker is lost if that broker dies ` +
          `(kafka-configs --alter --entity-type topics --entity-name ${topic.name} --add-config min.insync.replicas=${documented})`,
      );
  }
  return messages;
}
