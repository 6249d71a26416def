// Which listings were re-sent today (Redis, one key per listing, 24 h). Bulk create reports a
// listing to the status stream as re-sent (it restarts the expiry clock, and returns a listing that
// had left the market) at most once a day per listing, so a feed that pushes its whole inventory
// every hour does not turn into one status item per listing per push. When a listing leaves the
// market the stream forgets its mark, so re-sending it the same day still brings it back.
// The marks are under their account's hash tag (a listing id is derived from its account, and both
// callers know the account), so one call's marks share a slot.
import type { Redis } from 'ioredis';
import { redisScript } from '../clients/redis-script.ts';
import { accountSpace } from '../redis-keys/tags.ts';

export const RESEND_MARK_SECONDS = 24 * 3600;
const CHUNK = 500;

// KEYS: one mark per listing; ARGV[1]: lifetime. Returns the 1-based positions newly set.
const markScript = redisScript(`
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('SET', key, '1', 'NX', 'EX', ARGV[1]) then out[#out + 1] = i end
end
return out
`);

export const resendMarkKey = (prefix: string, accountId: string, listingId: string) =>
  `${accountSpace(prefix, accountId)}lifecycle:resent:${listingId}`;

export function resendMarks(redis: Redis, prefix: string) {
  return {
    /** Marks `ids` (listings of `accountId`) as re-sent today; returns those that were not marked yet. */
    async mark(accountId: string, ids: readonly string[]): Promise<string[]> {
      const key = (listingId: string) => resendMarkKey(prefix, accountId, listingId);
      const fresh: string[] = [];
      for (let i = 0; i < ids.length; i += CHUNK) {
        const chunk = ids.slice(i, i + CHUNK);
        const set = (await markScript.run(
          redis,
          chunk.length,
          ...chunk.map(key),
          RESEND_MARK_SECONDS,
        )) as number[];
        for (const position of set) fresh.push(chunk[position - 1]!);
      }
      return fresh;
    },
    /** Forgets the marks of `ids` (they left the market, or their report could not be published). */
    async forget(accountId: string, ids: readonly string[]): Promise<void> {
      const key = (listingId: string) => resendMarkKey(prefix, accountId, listingId);
      for (let i = 0; i < ids.length; i += CHUNK) await redis.del(...ids.slice(i, i + CHUNK).map(key));
    },
  };
}

export type ResendMarks = ReturnType<typeof resendMarks>;
