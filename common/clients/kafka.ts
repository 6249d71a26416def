import { Kafka, logLevel as kafkaLogLevel, Partitioners, type Producer } from 'kafkajs';
import { coveredProducer, recordingPartitioner } from './kafka-covered-send.ts';
import './kafkajs-timers.ts';
import './kafkajs-request-queue.ts';
import type { Logger } from '../logger.ts';

export function createKafka(brokers: string[], clientId: string, logger: Logger): Kafka {
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2_000 },
    logLevel: kafkaLogLevel.WARN,
    logCreator:
      () =>
      ({ level, log }) => {
        const { message, ...rest } = log;
        // Start-up notices that do not apply: we bound producer retries on purpose (an API request
        // must fail in seconds, and listing ids make a re-send harmless), and set the partitioner.
        if (typeof message === 'string' && message.startsWith('Limiting retries for the idempotent')) return;
        const at = level <= kafkaLogLevel.ERROR ? 'error' : level === kafkaLogLevel.WARN ? 'warn' : 'debug';
        logger[at](`kafka: ${message}`, rest);
      },
  });
}

/**
 * A producer. `idempotent` makes the broker drop a retried send it already has (needed where a
 * duplicate message would be stored twice, e.g. view events); it allows one request in flight, so
 * paths whose messages carry deterministic ids that the stream dedupes (listings) turn it off for
 * throughput (measured ~40 % more listings/s, README "Performance").
 * Its sends resolve only when every partition they wrote to is acknowledged (kafka-covered-send.ts).
 */
export async function createProducer(kafka: Kafka, { idempotent = true } = {}): Promise<Producer> {
  const create = () =>
    kafka.producer({
      idempotent,
      ...(idempotent ? { maxInFlightRequests: 1 } : {}),
      allowAutoTopicCreation: false,
      createPartitioner: recordingPartitioner(Partitioners.DefaultPartitioner),
    });
  return coveredProducer(create, { idempotent });
}
