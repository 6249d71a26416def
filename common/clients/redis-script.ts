// A Lua script run by its SHA-1 (EVALSHA), so the source travels only when Redis does not know it
// yet (after a restart or SCRIPT FLUSH: NOSCRIPT → EVAL, which also caches it again).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { assertOneSlot } from '../redis-keys/slot.ts';
import { isCluster } from './redis.ts';

// `freesMemory` marks a script that only revokes, releases or deletes: it must run even when Redis
// is at its maxmemory ceiling (noeviction refuses a script whose first write is a command that may
// grow memory — HSET, HINCRBY, XADD — with "OOM command not allowed"), or at the ceiling a leaked
// key could not be revoked nor a claim given back. Redis 7 reads the flag from the shebang line.
export function redisScript(body: string, options: { freesMemory?: boolean } = {}) {
  const source = options.freesMemory ? `#!lua flags=allow-oom\n${body}` : body;
  const sha = createHash('sha1').update(source).digest('hex');
  async function evaluate(redis: Redis, numKeys: number, keysAndArgs: (string | number | Buffer)[]) {
    try {
      return await redis.evalsha(sha, numKeys, ...keysAndArgs);
    } catch (error) {
      if (!String((error as Error).message).includes('NOSCRIPT')) throw error;
      return redis.eval(source, numKeys, ...keysAndArgs);
    }
  }
  return {
    /** The Lua source, for MULTI/pipeline calls (which cannot fall back from EVALSHA). */
    source,
    /** Same arguments as EVAL after the script: the number of keys, then keys and arguments. */
    async run(redis: Redis, numKeys: number, ...keysAndArgs: (string | number | Buffer)[]): Promise<unknown> {
      // Checked on every topology, so a script a cluster would refuse fails in single-node tests too.
      assertOneSlot(keysAndArgs.slice(0, numKeys).map(String), 'a Redis script');
      return evaluate(redis, numKeys, keysAndArgs);
    },
    /**
     * For keys of many slots on a single node, where one call replaces a command per key (a cluster
     * would refuse it: CROSSSLOT). Throws on a cluster, so the caller keeps a cluster's way beside it.
     */
    async runOnSingleNode(
      redis: Redis,
      numKeys: number,
      ...keysAndArgs: (string | number | Buffer)[]
    ): Promise<unknown> {
      if (isCluster(redis)) throw new Error('a script over keys of many slots cannot run on a Redis Cluster');
      return evaluate(redis, numKeys, keysAndArgs);
    },
  };
}
