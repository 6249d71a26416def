import {
  Kafka,
  logLevel as kafkaLogLevel,
  Partitioners,
  type Consumer,
  type ConsumerConfig,
  type ConsumerCrashEvent,
  type Producer,
} from 'kafkajs';
import { coveredProducer, recordingPartitioner } from './kafka-covered-send.ts';
import './kafkajs-timers.ts';
import './kafkajs-request-queue.ts';
import { fatal } from '../fatal.ts';
import { errorFields, type Logger } from '../logger.ts';

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
        // kafkajs logs at error what it retries itself (a broker down, a leader moving, a consumer it
        // restarts): expected during a broker's failover, so a warning. What it gives up on reaches
        // our code — a send's rejection, a consumer crash without restart (createGroupConsumer) —
        // which logs it at the level it deserves.
        const at = level <= kafkaLogLevel.WARN ? 'warn' : 'debug';
        logger[at](`kafka: ${message}`, rest);
      },
  });
}

/**
 * A group consumer whose crash kafkajs does not restart (a non-retriable error) is logged as an
 * error and stops the process (common/fatal.ts): the member stopped consuming, and a fresh process
 * started by the supervisor joins the group again, where a live process with a dead member would
 * hold nothing and say nothing. Crashes kafkajs restarts are its own warnings (above).
 */
export function createGroupConsumer(kafka: Kafka, config: ConsumerConfig, logger: Logger): Consumer {
  const consumer = kafka.consumer(config);
  consumer.on(consumer.events.CRASH, crashReporter(logger));
  return consumer;
}

/** The consumer's CRASH listener: only when kafkajs gives the consumer up, an error line and a stop. */
export function crashReporter(logger: Logger, stopProcess: (reason: string) => void = fatal) {
  return ({ payload }: ConsumerCrashEvent): void => {
    if (payload.restart) return;
    logger.error('kafka: consumer stopped after a crash kafkajs does not restart', {
      group: payload.groupId,
      ...errorFields(payload.error),
    });
    stopProcess(`the consumer of group ${payload.groupId} stopped: ${payload.error.message}`);
  };
}

/**
 * A producer. `idempotent` makes the broker drop a retried send it already has (needed where a
 * duplicate message would be stored twice, e.g. view events); it allows one request in flight, so
 * paths whose messages carry deterministic ids that the stream dedupes (listings) turn it off for
 * throughput (measured ~40 % more listings/s, docs/performance.md, "Ingest API").
 * Its sends resolve only when every partition they wrote to is acknowledged (kafka-covered-send.ts);
 * `covered: false` is kafkajs's own producer, for a benchmark build that measures what that costs
 * (common/bench-build.ts).
 */
export async function createProducer(
  kafka: Kafka,
  { idempotent = true, covered = true } = {},
): Promise<Producer> {
  const create = () =>
    kafka.producer({
      idempotent,
      ...(idempotent ? { maxInFlightRequests: 1 } : {}),
      allowAutoTopicCreation: false,
      createPartitioner: recordingPartitioner(Partitioners.DefaultPartitioner),
    });
  if (covered) return coveredProducer(create, { idempotent });
  const producer = create();
  await producer.connect();
  return producer;
}
