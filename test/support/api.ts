// Helpers for integration tests: real keys in the real Redis, HTTP calls to the running service,
// and polling for asynchronous outcomes. Each test creates its own account, so tests never share data.
import { inject } from 'vitest';
import { createKeyStore, type CreateKeyInput } from '../../common/auth/key-store.ts';
import { createRedis, redisReady } from '../../common/clients/redis.ts';
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import { baseEnvSchema, parseEnv } from '../../common/env.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export const env = parseEnv(baseEnvSchema);
export const baseUrl = (): string => inject('baseUrl');

let redis: ReturnType<typeof createRedis> | undefined;
export async function testRedis() {
  redis ??= createRedis({ url: env.REDIS_URL, clusterNodes: env.REDIS_CLUSTER_NODES }, { name: 'tests' });
  await redisReady(redis);
  return redis;
}

let clickhouse: ReturnType<typeof createClickHouse> | undefined;
export function testClickHouse() {
  return (clickhouse ??= createClickHouse({
    url: env.CLICKHOUSE_URL,
    username: env.CLICKHOUSE_USER,
    password: env.CLICKHOUSE_PASSWORD,
    database: env.CLICKHOUSE_DATABASE,
  }));
}

export interface TestKey {
  id: string;
  key: string;
  account_id: string;
}

/** A fresh key (and, unless `accountId` is given, a fresh account). Defaults: live, business. */
export async function createTestKey(input: Partial<CreateKeyInput> = {}): Promise<TestKey> {
  const store = createKeyStore(await testRedis(), env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);
  const created = await store.create({ mode: 'live', tier: 'business', ...input });
  return { id: created.id, key: created.key, account_id: created.account_id };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function api<T = any>(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['X-API-Key'] = options.key;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl()}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep text */
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}

/** Polls `check` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await sleep(200);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/**
 * Waits until GET /listings/batches/{id} says the batch is completed (every accepted listing
 * stored) and returns that answer.
 */
export async function batchCompleted(key: string, batchId: string, timeoutMs = 30_000) {
  return eventually(
    async () => {
      const batch = await api('GET', `/api/v1/listings/batches/${batchId}`, { key });
      return batch.body?.status === 'completed' ? batch.body : undefined;
    },
    timeoutMs,
    `batch ${batchId} completed`,
  );
}

let counter = 0;
/** A valid listing in Dar es Salaam; unique per call unless `overrides` fix the fingerprint fields. */
export function sampleListing(overrides: Record<string, unknown> = {}) {
  counter++;
  return {
    title: `Test apartment ${Date.now()}-${counter}-${Math.random().toString(36).slice(2, 8)}`,
    description: 'Two-bedroom apartment near the beach, with parking and a generator.',
    property_type: 'apartment',
    price: 850_000,
    currency: 'TZS',
    bedrooms: 2,
    bathrooms: 1,
    latitude: -6.7735,
    longitude: 39.2695,
    ...overrides,
  };
}
