// Topic names, from the definitions in infra/kafka/topics.json (the single source of truth).
import definitions from '../infra/kafka/topics.json' with { type: 'json' };

export type TopicName = keyof typeof definitions.topics;

export function topicName(prefix: string, topic: TopicName): string {
  return `${prefix}${topic}`;
}

export const topicDefinitions = definitions.topics;
