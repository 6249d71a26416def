import { Kafka, logLevel as kafkaLogLevel, type Producer } from 'kafkajs';
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
        const at = level <= kafkaLogLevel.ERROR ? 'error' : level === kafkaLogLevel.WARN ? 'warn' : 'debug';
        logger[at](`kafka: ${message}`, rest);
      },
  });
}

/** An idempotent producer: broker-side dedupe of retried sends within a producer session. */
export async function createProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  return producer;
}
