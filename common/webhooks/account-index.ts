// An index of the accounts that have work waiting in one of their own families (the webhook outbox,
// the delivery due sets), so that a reader finds them without scanning. The work lives under the
// account's hash tag; the index is a family every account writes into, so it is split into
// REDIS_GLOBAL_PARTS parts (`{g:<n>}`), an account always in part partOf(account), and readers visit
// every part. Per part: a sorted set (account → when to look at it next, ms) and a hash of stamps
// (account → "<ms>:<random>" of its last touch).
//
// The index and the work are in different slots, so no script writes both. The order that keeps
// every piece of work findable, whatever process dies between two steps:
// 1. a producer touches the index first (the account, due at its work's time, and a new stamp);
// 2. then writes the work, in a script that refuses ('stale') when more than PRODUCER_DEADLINE_MS
//    passed since the stamp (a producer stalled between its steps starts again from 1);
// 3. then touches the index again.
// A reader takes an account from the index (reading its stamp), does the work it finds, and
// settles the account: with the stamp unchanged, it sets the time of the account's next work, or
// removes the account when none is left. An index entry with nothing behind it is harmless: the
// reader finds nothing and settles it away. Why no work is ever left without an entry:
// - a touch after the reader read the stamp changes it, and the settle then only lowers the time;
// - work written after the reader looked (2 after the reader's look, 1 before its stamp read) is
//   followed by 3, which either changes the stamp before the settle or re-adds the entry after it;
// - if the producer died between 2 and 3, the settle sees a stamp less than INDEX_GRACE_MS old and
//   keeps the account to be looked at again when INDEX_GRACE_MS has passed since the stamp; by then
//   step 2 is done (it refuses later than half of that), so that look finds the work.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisScript } from '../clients/redis-script.ts';
import { partOf } from '../redis-keys/tags.ts';

export const INDEX_GRACE_MS = 120_000;
/** A producer's work step refuses after this long since its index touch (account-index.ts). */
export const PRODUCER_DEADLINE_MS = INDEX_GRACE_MS / 2;
/** The answer of a work step that came too late after its touch: touch again and retry. */
export const STALE = 'stale';

/**
 * Lua for a producer's work step: `stamp_fresh(stamp)` is false when Redis's clock is more than
 * PRODUCER_DEADLINE_MS past the stamp's time (the script then answers STALE and writes nothing).
 */
export const STAMP_FRESH_LUA = `
local function stamp_fresh(stamp)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  return now - tonumber(string.match(stamp, '^%d+')) <= ${PRODUCER_DEADLINE_MS}
end
`;

/** One part of an index: its sorted set (account → next look, ms) and its stamps (hash). */
export interface AccountIndexPart {
  order: string;
  stamps: string;
}

// KEYS[1] order, KEYS[2] stamps; ARGV[1] due (ms), ARGV[2] account, ARGV[3] stamp.
const touchScript = redisScript(`
redis.call('ZADD', KEYS[1], 'LT', ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
`);

// KEYS[1] order, KEYS[2] stamps; ARGV[1] now, ARGV[2] limit, ARGV[3] lease until ('' = no lease).
// Accounts due by now, earliest first, each with its score and stamp; with a lease, their times
// move to the lease's end, so other readers skip them until then.
const dueScript = redisScript(`
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i = 1, #due, 2 do
  if ARGV[3] ~= '' then redis.call('ZADD', KEYS[1], 'XX', ARGV[3], due[i]) end
  out[#out + 1] = due[i]
  out[#out + 1] = due[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], due[i]) or ''
end
return out
`);

// KEYS[1] order, KEYS[2] stamps; ARGV[1] account, ARGV[2] the stamp read before the work was
// looked at, ARGV[3] the time of the account's next work ('' = none left), ARGV[4] now, ARGV[5]
// grace. Returns 0 when touched since (time only lowered), 1 removed, 2 rescheduled.
const settleScript = redisScript(`
local stamp = redis.call('HGET', KEYS[2], ARGV[1]) or ''
if stamp ~= ARGV[2] then
  if ARGV[3] ~= '' then redis.call('ZADD', KEYS[1], 'LT', ARGV[3], ARGV[1]) end
  return 0
end
local now = tonumber(ARGV[4])
local recheck = (tonumber(string.match(stamp, '^%d+')) or 0) + tonumber(ARGV[5])
if ARGV[3] == '' and recheck <= now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
local nextAt = recheck
if ARGV[3] ~= '' and (recheck <= now or tonumber(ARGV[3]) < recheck) then nextAt = tonumber(ARGV[3]) end
redis.call('ZADD', KEYS[1], nextAt, ARGV[1])
return 2
`);

/** An account found in the index: when it is due, and the stamp to settle it with. */
export interface IndexedAccount {
  account: string;
  score: number;
  stamp: string;
}

/**
 * The index whose part `n` has the keys `keysOfPart(n)` (spelled by the module of the work:
 * common/webhooks/outbox.ts, stream/webhooks/queue.ts), over `parts` parts.
 */
export function accountIndex(
  redis: Redis,
  name: string,
  keysOfPart: (part: number) => AccountIndexPart,
  parts: number,
) {
  const keysOf = (account: string) => keysOfPart(partOf(account, parts));
  const allParts = Array.from({ length: parts }, (_, part) => keysOfPart(part));

  async function touch(account: string, dueAt: number): Promise<string> {
    const stamp = `${Date.now()}:${randomBytes(6).toString('hex')}`;
    const keys = keysOf(account);
    await touchScript.run(redis, 2, keys.order, keys.stamps, String(dueAt), account, stamp);
    return stamp;
  }

  return {
    parts: allParts,
    /** Marks the account as having work due at `dueAt` (a producer's step 1 and 3); its stamp. */
    touch,

    /**
     * Steps 1-3 of a producer (see the top of this file): `work(stamp)` writes the work under the
     * account's tag, answering STALE when its script found the stamp too old.
     */
    async produce<T>(account: string, dueAt: number, work: (stamp: string) => Promise<T | typeof STALE>) {
      for (let attempt = 1; ; attempt++) {
        const result = await work(await touch(account, dueAt));
        if (result !== STALE) {
          await touch(account, dueAt);
          return result as T;
        }
        // Only a stalled process or a clock far from Redis's gets here more than once.
        if (attempt === 3)
          throw new Error(`index ${name}: the work step came too late after its touch 3 times`);
      }
    },

    /** Accounts due by `now` in every part (at most `limit` per part), earliest first. */
    async due(now: number, limit: number, leaseUntil?: number): Promise<IndexedAccount[]> {
      const replies = await Promise.all(
        allParts.map(
          (keys) =>
            dueScript.run(redis, 2, keys.order, keys.stamps, String(now), limit, leaseUntil ?? '') as Promise<
              string[]
            >,
        ),
      );
      const found: IndexedAccount[] = [];
      for (const reply of replies) {
        for (let i = 0; i + 2 < reply.length; i += 3) {
          found.push({ account: reply[i]!, score: Number(reply[i + 1]), stamp: reply[i + 2]! });
        }
      }
      return found.sort((x, y) => x.score - y.score);
    },

    /** After the account's work was looked at: its next work's time, or null when none is left. */
    async settle(found: IndexedAccount, next: number | null, now = Date.now()): Promise<void> {
      const keys = keysOf(found.account);
      await settleScript.run(
        redis,
        2,
        keys.order,
        keys.stamps,
        found.account,
        found.stamp,
        next === null ? '' : String(next),
        String(now),
        String(INDEX_GRACE_MS),
      );
    },

    /** Every indexed account with its next look time (for backlog figures). */
    async all(): Promise<{ account: string; score: number }[]> {
      const replies = await Promise.all(
        allParts.map((keys) => redis.zrange(keys.order, 0, -1, 'WITHSCORES')),
      );
      return replies.flatMap((flat) => {
        const out: { account: string; score: number }[] = [];
        for (let i = 0; i + 1 < flat.length; i += 2)
          out.push({ account: flat[i]!, score: Number(flat[i + 1]) });
        return out;
      });
    },
  };
}

export type AccountIndex = ReturnType<typeof accountIndex>;
