// The Kafka part of a backup: each topic's partitions, replication and own configuration (what was
// set on the topic, not the broker's defaults), and every consumer group's committed offsets. The
// messages themselves stay in Kafka (replicated, and the stream replays them from the offsets).
import kafkajs, { type Admin } from 'kafkajs';

const { ConfigResourceTypes, ConfigSource } = kafkajs;

export interface TopicState {
  name: string;
  partitions: number;
  replication_factor: number;
  /** The topic's own settings (retention.ms, min.insync.replicas, ...). */
  configs: Record<string, string>;
}

/** Group → topic → partition → committed offset (as Kafka reports it; "-1" when none). */
export type GroupOffsets = Record<string, Record<string, Record<string, string>>>;

export interface KafkaState {
  topics: TopicState[];
  offsets: GroupOffsets;
}

/** Topics of the service (KAFKA_TOPIC_PREFIX; internal `__*` topics left out), with their configuration. */
async function topicStates(admin: Admin, prefix: string): Promise<TopicState[]> {
  const names = (await admin.listTopics())
    .filter((name) => !name.startsWith('__') && name.startsWith(prefix))
    .sort();
  if (!names.length) return [];
  const metadata = await admin.fetchTopicMetadata({ topics: names });
  const configs = await admin.describeConfigs({
    includeSynonyms: false,
    resources: names.map((name) => ({ type: ConfigResourceTypes.TOPIC, name })),
  });
  return names.map((name) => {
    const topic = metadata.topics.find((t) => t.name === name);
    const entries =
      configs.resources
        .find((r) => r.resourceName === name)
        ?.configEntries.filter((entry) => entry.configSource === ConfigSource.TOPIC_CONFIG) ?? [];
    return {
      name,
      partitions: topic?.partitions.length ?? 0,
      replication_factor: topic?.partitions[0]?.replicas.length ?? 1,
      configs: Object.fromEntries(entries.map((entry) => [entry.configName, entry.configValue])),
    };
  });
}

/** Every consumer group's committed offsets of the given topics (groups of other topics left out). */
async function groupOffsets(admin: Admin, topics: string[]): Promise<GroupOffsets> {
  const groups = (await admin.listGroups()).groups.map((g) => g.groupId).sort();
  const offsets: GroupOffsets = {};
  for (const groupId of groups) {
    const fetched = await admin.fetchOffsets({ groupId, topics });
    const committed = fetched.filter((t) => t.partitions.some((p) => p.offset !== '-1'));
    if (!committed.length) continue;
    offsets[groupId] = Object.fromEntries(
      committed.map((t) => [
        t.topic,
        Object.fromEntries(t.partitions.map((p) => [String(p.partition), p.offset])),
      ]),
    );
  }
  return offsets;
}

/**
 * Topics and committed offsets, read before the stores are backed up: everything below a committed
 * offset is stored already, so the stores' copies hold at least what the offsets say, and a replay
 * from them after a restore covers the rest (the stream skips what is stored: replay-guard.ts).
 */
export async function captureKafka(admin: Admin, topicPrefix: string): Promise<KafkaState> {
  const topics = await topicStates(admin, topicPrefix);
  return {
    topics,
    offsets: await groupOffsets(
      admin,
      topics.map((t) => t.name),
    ),
  };
}

/** Creates the backed-up topics that are missing, with their partitions and configuration. */
export async function recreateTopics(admin: Admin, topics: TopicState[], brokers: number): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !existing.has(t.name));
  if (missing.length)
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((t) => ({
        topic: t.name,
        numPartitions: t.partitions,
        // A smaller cluster than the backed-up one cannot hold as many copies.
        replicationFactor: Math.min(t.replication_factor, brokers),
        configEntries: Object.entries(t.configs).map(([name, value]) => ({ name, value })),
      })),
    });
  return missing.map((t) => t.name);
}

/**
 * Sets every group's committed offsets back to the backed-up ones. Kafka accepts this only from
 * outside the group while the group has no member: refused (naming the groups) while any runs.
 */
export async function restoreOffsets(admin: Admin, offsets: GroupOffsets): Promise<number> {
  const groups = Object.keys(offsets);
  const described = groups.length ? (await admin.describeGroups(groups)).groups : [];
  const busy = described.filter((g) => g.members.length > 0).map((g) => g.groupId);
  if (busy.length)
    throw new Error(
      `consumer groups ${busy.join(', ')} have running members: stop the stream workers and image ` +
        'processes before restoring (their offsets can only be set while nobody consumes)',
    );
  let set = 0;
  for (const [groupId, topics] of Object.entries(offsets)) {
    for (const [topic, partitions] of Object.entries(topics)) {
      const entries = Object.entries(partitions)
        .filter(([, offset]) => offset !== '-1')
        .map(([partition, offset]) => ({ partition: Number(partition), offset }));
      if (!entries.length) continue;
      await admin.setOffsets({ groupId, topic, partitions: entries });
      set += entries.length;
    }
  }
  return set;
}
