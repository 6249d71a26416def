// The peer pipeline's configuration (bench/peer/server.ts and consumer.ts), set by bench:stream when
// it starts them: the stack's Kafka and ClickHouse, and the topic, database and port of this run.
import { z } from 'zod';
import { baseEnvSchema, parseEnv } from '../../common/env.ts';

export const peerEnv = parseEnv(
  baseEnvSchema
    .pick({ KAFKA_BROKERS: true, CLICKHOUSE_URL: true, CLICKHOUSE_USER: true, CLICKHOUSE_PASSWORD: true })
    .extend({
      PEER_TOPIC: z.string().min(1),
      PEER_DATABASE: z.string().regex(/^\w+$/),
      PEER_GROUP: z.string().min(1).default('bench-peer'),
      PEER_PORT: z.coerce.number().int().min(1).max(65535).default(28291),
    }),
);
