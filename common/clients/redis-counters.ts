// Counter hashes (fields kept by HINCRBY) read back as numbers: an absent or malformed field counts
// 0, and a count never shows below 0.
import type { Redis } from 'ioredis';

export interface CounterHash {
  /** The fields present. */
  names: string[];
  count(name: string): number;
}

/** The hash at `key` as known now, or null when it does not exist. */
export async function readCounterHash(redis: Redis, key: string): Promise<CounterHash | null> {
  const fields = await redis.hgetall(key);
  const names = Object.keys(fields);
  if (!names.length) return null;
  return { names, count: (name) => Math.max(0, Number(fields[name] ?? 0) || 0) };
}
