// The kafkajs consumer of one group member (offset-consumer.ts), with the group's timing and fetch
// settings in one place.
import type { Consumer, Kafka } from 'kafkajs';
import { createGroupConsumer } from '../common/clients/kafka.ts';
import type { Logger } from '../common/logger.ts';

export interface MemberTiming {
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
}

export const DEFAULT_TIMING: MemberTiming = {
  sessionTimeoutMs: 30_000,
  rebalanceTimeoutMs: 60_000,
  heartbeatIntervalMs: 3_000,
};

/**
 * How long the broker holds a fetch that finds no new message. A message arriving ends the wait at
 * once (the fetch's minimum is one byte), so this is not a latency: it is how often an idle member
 * asks again. At 100 ms the idle members of a worker and an image process cost Kafka and themselves
 * ~0.1 core (docs/decisions/0017-image-process-and-idle-consumers.md); it stays below the heartbeat interval, which
 * kafkajs sends between fetches.
 */
const IDLE_FETCH_WAIT_MS = 1_000;

export function memberConsumer(
  kafka: Kafka,
  logger: Logger,
  options: {
    groupId: string;
    timing: MemberTiming;
    maxBytesPerPartition?: number;
    fetchMinBytes?: number;
    fetchWaitMs?: number;
  },
): Consumer {
  return createGroupConsumer(
    kafka,
    {
      groupId: options.groupId,
      sessionTimeout: options.timing.sessionTimeoutMs,
      rebalanceTimeout: options.timing.rebalanceTimeoutMs,
      heartbeatInterval: options.timing.heartbeatIntervalMs,
      maxBytesPerPartition: options.maxBytesPerPartition ?? 1024 * 1024,
      minBytes: options.fetchMinBytes ?? 1,
      maxWaitTimeInMs: options.fetchWaitMs ?? IDLE_FETCH_WAIT_MS,
      allowAutoTopicCreation: false,
    },
    logger,
  );
}
