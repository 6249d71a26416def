// How the previous release named the usage counters and rate windows, and how
// `npm run redis:migrate` moves them (the registry's `legacy` entries, common/redis-keys/registry.ts).
// The previous release named a key's counters and rate window by the key's id; they are now named by
// the key's SHA-256 (its hash tag), read from the key's id lookup. Every move is idempotent (an old
// key that is gone has nothing left to move; a copy already made is not made twice) and deletes
// the old key last. The counters of a key whose id lookup is gone are deleted: no request can
// present that key, nothing could attribute them (the previous release's rollup skipped them too).
import type { Redis } from 'ioredis';
import { hashOfKeyId } from '../auth/legacy-keys.ts';
import { redisScript } from '../clients/redis-script.ts';
import type { LegacyNames } from '../redis-keys/family.ts';
import { markDirty } from './dirty.ts';
import { accountRateWindowKey, usageKeys } from './keys.ts';

// KEYS[1] the new counters hash. ARGV[1] the old hash's time left in ms (-1: none), ARGV[2..] its
// field/value pairs. Adds them to the new hash (which requests since the upgrade may have started)
// once: the field `migrated` marks a hash that has them. Readers know only the counters' fields.
const mergeCountersScript = redisScript(`
if redis.call('HSETNX', KEYS[1], 'migrated', '1') == 0 then return 0 end
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
local ttl = tonumber(ARGV[1])
if ttl > 0 and redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`);

// KEYS[1] the new rate window. ARGV[1] the old window's count, ARGV[2] its time left in ms.
// A window the key opened since the upgrade is kept (for the rest of that one window, the requests
// of the old one are not counted again).
const moveWindowScript = redisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 or tonumber(ARGV[2]) <= 0 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`);

/** The old key's name split: the old prefix and the values of the pattern's `(…)` groups. */
function parse(oldKey: string, shape: RegExp): { oldPrefix: string; values: string[] } | null {
  const match = shape.exec(oldKey);
  return match ? { oldPrefix: oldKey.slice(0, match.index), values: match.slice(1) } : null;
}

/** A move of one key's old counters hash (`usage:<id>…`) to the name `to` gives for the key's hash. */
function countersMove(
  pattern: string,
  shape: RegExp,
  to: (prefix: string, hash: string, values: string[]) => string,
): LegacyNames {
  return {
    pattern,
    async move(redis, prefix, oldKey) {
      const parsed = parse(oldKey, shape);
      if (!parsed) return;
      const hash = await hashOfKeyId(redis, prefix, parsed.oldPrefix, parsed.values[0]!);
      const [fields, ttl] = await Promise.all([redis.hgetall(oldKey), redis.pttl(oldKey)]);
      const pairs = Object.entries(fields).flat();
      if (hash && pairs.length) {
        await mergeCountersScript.run(redis, 1, to(prefix, hash, parsed.values), ttl, ...pairs);
      }
      await redis.del(oldKey);
    },
  };
}

async function moveDirtySet(redis: Redis, prefix: string, oldKey: string, parts: number) {
  const parsed = parse(oldKey, /usage:dirty:([^:]+)$/);
  if (!parsed) return;
  for (const id of await redis.smembers(oldKey)) {
    const hash = await hashOfKeyId(redis, prefix, parsed.oldPrefix, id);
    if (hash) await markDirty(redis, prefix, parts, parsed.values[0]!, hash);
  }
  await redis.del(oldKey);
}

export const usageLegacy = {
  day: countersMove('usage:*:d:*', /usage:([^:]+):d:([^:]+)$/, (p, hash, [, day]) =>
    usageKeys(p, hash).day(day!),
  ),
  month: countersMove('usage:*:m:*', /usage:([^:]+):m:([^:]+)$/, (p, hash, [, month]) =>
    usageKeys(p, hash).month(month!),
  ),
  total: countersMove('usage:*:total', /usage:([^:]+):total$/, (p, hash) => usageKeys(p, hash).total),
  rateWindow: {
    pattern: 'rl:*',
    async move(redis, prefix, oldKey) {
      const parsed = parse(oldKey, /rl:([^:]+)$/);
      if (!parsed) return;
      const hash = await hashOfKeyId(redis, prefix, parsed.oldPrefix, parsed.values[0]!);
      const [count, ttl] = await Promise.all([redis.get(oldKey), redis.pttl(oldKey)]);
      if (hash && count !== null)
        await moveWindowScript.run(redis, 1, usageKeys(prefix, hash).rateWindow, count, ttl);
      await redis.del(oldKey);
    },
  },
  accountRateWindow: {
    pattern: 'rla:*',
    rename: (prefix, suffix) => {
      const account = suffix.slice('rla:'.length);
      return account && !account.includes(':') ? accountRateWindowKey(prefix, account) : null;
    },
  },
  dirty: { pattern: 'usage:dirty:*', move: moveDirtySet },
} satisfies Record<string, LegacyNames>;
