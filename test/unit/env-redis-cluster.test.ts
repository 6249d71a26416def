// REDIS_CLUSTER_NODES: the key prefix is the configured one on every topology; on a Redis Cluster
// the hash tags after it (common/redis-keys/tags.ts) place the keys, spread over the masters.
import { describe, expect, it } from 'vitest';
import { baseEnvSchema, EnvError, parseEnv } from '../../common/env.ts';
import { imagesProcessEnvSchema } from '../../stream/images/process-env.ts';

const production = {
  NODE_ENV: 'production',
  KAFKA_BROKERS: 'kafka-1:9092',
  CLICKHOUSE_URL: 'https://clickhouse.internal:8443',
  REDIS_URL: 'rediss://:secret@redis.internal:6380',
};

describe('Redis topology in the environment', () => {
  it('happy: a single node keeps the configured prefix and lists no cluster nodes', () => {
    const env = parseEnv(baseEnvSchema, { ...production, REDIS_KEY_PREFIX: 'rls:' });
    expect(env.REDIS_KEY_PREFIX).toBe('rls:');
    expect(env.REDIS_CLUSTER_NODES).toEqual([]);
    expect(parseEnv(baseEnvSchema, production).REDIS_KEY_PREFIX).toBe('rls:');
  });

  it('happy: cluster nodes leave the prefix as configured, in every schema of the process', () => {
    const raw = {
      ...production,
      REDIS_CLUSTER_NODES: ' r1:6379, r2:6379 ,r3:6379',
      REDIS_KEY_PREFIX: 'rls:',
    };
    const env = parseEnv(baseEnvSchema, raw);
    expect(env.REDIS_CLUSTER_NODES).toEqual(['r1:6379', 'r2:6379', 'r3:6379']);
    expect(env.REDIS_KEY_PREFIX).toBe('rls:');
    // Another process's schema gets the same prefix.
    expect(parseEnv(imagesProcessEnvSchema, raw).REDIS_KEY_PREFIX).toBe('rls:');
  });

  it('error: a prefix with a hash tag (braces) stops the process with the variable named', () => {
    expect(() => parseEnv(baseEnvSchema, { ...production, REDIS_KEY_PREFIX: '{rls}:' })).toThrow(
      /REDIS_KEY_PREFIX: must not contain \{ or \}/,
    );
  });

  it('error: a node that is not host:port stops the process with the variable named', () => {
    expect(() => parseEnv(baseEnvSchema, { ...production, REDIS_CLUSTER_NODES: 'r1:6379,redis-2' })).toThrow(
      /REDIS_CLUSTER_NODES/,
    );
    expect(() => parseEnv(baseEnvSchema, { ...production, REDIS_CLUSTER_NODES: 'r1' })).toThrow(EnvError);
  });
});
