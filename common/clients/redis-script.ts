// A Lua script run by its SHA-1 (EVALSHA), so the source travels only when Redis does not know it
// yet (after a restart or SCRIPT FLUSH: NOSCRIPT → EVAL, which also caches it again).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export function redisScript(source: string) {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    /** The Lua source, for MULTI/pipeline calls (which cannot fall back from EVALSHA). */
    source,
    /** Same arguments as EVAL after the script: the number of keys, then keys and arguments. */
    async run(redis: Redis, numKeys: number, ...keysAndArgs: (string | number | Buffer)[]): Promise<unknown> {
      try {
        return await redis.evalsha(sha, numKeys, ...keysAndArgs);
      } catch (error) {
        if (!String((error as Error).message).includes('NOSCRIPT')) throw error;
        return redis.eval(source, numKeys, ...keysAndArgs);
      }
    },
  };
}
