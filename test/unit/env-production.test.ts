// Connection settings: in production an unset KAFKA_BROKERS, CLICKHOUSE_URL or
// REDIS_URL stops the process with the variable named; elsewhere they default to the local stack
// of `npm start`, with the same ports as infra/local/settings.mjs computes.
import { describe, expect, it } from 'vitest';
import { baseEnvSchema, EnvError, parseEnv } from '../../common/env.ts';
import { localStackDefaults } from '../../common/local-stack-defaults.ts';
import { readSettings, serviceEnv } from '../../infra/local/settings.mjs';

describe('service environment in production', () => {
  it('security: names every missing connection variable instead of meaning 127.0.0.1', () => {
    const parse = () => parseEnv(baseEnvSchema, { NODE_ENV: 'production' });
    expect(parse).toThrow(EnvError);
    try {
      parse();
    } catch (error) {
      const message = (error as Error).message;
      for (const name of ['KAFKA_BROKERS', 'CLICKHOUSE_URL', 'REDIS_URL']) {
        expect(message).toMatch(new RegExp(`${name}: is required in production`));
      }
    }
  });

  it('happy: takes the configured servers as they are', () => {
    const env = parseEnv(baseEnvSchema, {
      NODE_ENV: 'production',
      KAFKA_BROKERS: 'kafka-1:9092,kafka-2:9092',
      CLICKHOUSE_URL: 'https://clickhouse.internal:8443',
      REDIS_URL: 'rediss://redis.internal:6380',
    });
    expect(env.KAFKA_BROKERS).toEqual(['kafka-1:9092', 'kafka-2:9092']);
    expect(env.CLICKHOUSE_URL).toBe('https://clickhouse.internal:8443');
  });
});

describe('service environment in development', () => {
  it('happy: defaults to the ports of the local stack that npm start provisions', () => {
    for (const env of [
      {},
      { RLS_PORT_BASE: '39000' },
      { KAFKA_PORT: '12092', CLICKHOUSE_HTTP_PORT: '12123', REDIS_PORT: '12379' },
      { CLICKHOUSE_SHARDS: '2', RLS_PORT_BASE: '39000' },
    ]) {
      const local = serviceEnv(readSettings(env));
      expect(localStackDefaults(env), JSON.stringify(env)).toEqual({
        KAFKA_BROKERS: local.KAFKA_BROKERS,
        CLICKHOUSE_URL: local.CLICKHOUSE_URL,
        CLICKHOUSE_ANALYTICS_USER: local.CLICKHOUSE_ANALYTICS_USER,
        ...(local.CLICKHOUSE_NODES ? { CLICKHOUSE_NODES: local.CLICKHOUSE_NODES } : {}),
        REDIS_URL: local.REDIS_URL,
      });
    }
  });

  it('happy: RLS_TOPOLOGY=cluster defaults to its three brokers and six Redis Cluster nodes', () => {
    for (const env of [{ RLS_TOPOLOGY: 'cluster' }, { RLS_TOPOLOGY: 'cluster', RLS_PORT_BASE: '39000' }]) {
      const local = serviceEnv(readSettings(env));
      expect(localStackDefaults(env), JSON.stringify(env)).toEqual({
        KAFKA_BROKERS: local.KAFKA_BROKERS,
        CLICKHOUSE_URL: local.CLICKHOUSE_URL,
        CLICKHOUSE_ANALYTICS_USER: local.CLICKHOUSE_ANALYTICS_USER,
        CLICKHOUSE_NODES: local.CLICKHOUSE_NODES,
        REDIS_URL: local.REDIS_URL,
        REDIS_CLUSTER_NODES: local.REDIS_CLUSTER_NODES,
      });
      expect(local.KAFKA_BROKERS!.split(',')).toHaveLength(3);
      expect(local.REDIS_CLUSTER_NODES!.split(',')).toHaveLength(6);
    }
  });
});
