import { Kafka, logLevel as kafkaLogLevel, Partitioners, type Producer } from 'kafkajs';
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

/** An idempotent producer: broker-side dedupe of retried sends within a producer session. */
export async function createProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  return producer;
}
