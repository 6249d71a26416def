// The environment's ClickHouse server as the warehouse benchmarks reach it: its URL and
// credentials only, since each benchmark works in a database of its own.
import { baseEnvSchema, parseEnv } from '../common/env.ts';

const env = parseEnv(
  baseEnvSchema.pick({ CLICKHOUSE_URL: true, CLICKHOUSE_USER: true, CLICKHOUSE_PASSWORD: true }),
);

export const benchClickHouse = {
  url: env.CLICKHOUSE_URL,
  username: env.CLICKHOUSE_USER,
  password: env.CLICKHOUSE_PASSWORD,
};
