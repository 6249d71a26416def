// The webhook outbox: one Redis stream per account (`<prefix>{a:<account>}:outbox`), under the
// account's hash tag so that the script completing one of its batches appends the event in the
// same step; the delivery workers' fan-out (stream/webhooks/fanout.ts) turns each entry into
// deliveries and then deletes it. Which accounts have entries is an account index in
// REDIS_GLOBAL_PARTS parts (`webhook:outbox-accounts`, account-index.ts): a producer touches it
// before appending and again after, so no entry is ever left without an index entry. Appends never
// cap a stream's length (a cap would silently drop unread events); the backlog is watched
// (stream/webhooks/outbox-watch.ts) and shown in /healthz (stats).
import type { Redis } from 'ioredis';
import { redisScript } from '../clients/redis-script.ts';
import { accountSpace, partSpace } from '../redis-keys/tags.ts';
import { accountIndex, STALE, STAMP_FRESH_LUA } from './account-index.ts';

/** Part `part` of the index of accounts with outbox entries. */
export const outboxIndexKeys = (prefix: string, part: number) => ({
  order: `${partSpace(prefix, part)}webhook:outbox-accounts`,
  stamps: `${partSpace(prefix, part)}webhook:outbox-accounts:stamps`,
});

/** The index of accounts with outbox entries (account-index.ts). */
export const outboxIndex = (redis: Redis, prefix: string, parts: number) =>
  accountIndex(redis, 'outbox', (part) => outboxIndexKeys(prefix, part), parts);

export const webhookOutboxKey = (prefix: string, accountId: string) =>
  `${accountSpace(prefix, accountId)}outbox`;

/**
 * Lua for a script that appends an event: `append_event(stream, stamp, fields)` answers false
 * (append nothing, the caller answers STALE) when the index touch `stamp` is too old.
 */
export const APPEND_EVENT_LUA = `${STAMP_FRESH_LUA}
local function append_event(stream, stamp, fields)
  if not stamp_fresh(stamp) then return false end
  return redis.call('XADD', stream, '*', unpack(fields))
end
`;

// KEYS[1] the account's outbox; ARGV[1] the index stamp, ARGV[2..] field/value pairs.
const appendScript = redisScript(`${APPEND_EVENT_LUA}
local fields = {}
for i = 2, #ARGV do fields[#fields + 1] = ARGV[i] end
return append_event(KEYS[1], ARGV[1], fields) or '${STALE}'
`);

export interface OutboxStats {
  /** Entries in the accounts' outboxes. */
  length: number;
  /** Entries of accounts no fan-out is working on. */
  unread: number;
  /** Entries of accounts a fan-out has taken (being fanned out, or left by a crashed worker). */
  pending: number;
  /** unread + pending: events whose deliveries are not all created yet. */
  backlog: number;
}

export function webhookOutbox(redis: Redis, prefix: string, parts: number) {
  const index = outboxIndex(redis, prefix, parts);
  return {
    index,
    key: (accountId: string) => webhookOutboxKey(prefix, accountId),

    /** Appends one event of the account (index first, event, index again: account-index.ts). */
    async append(accountId: string, fields: Record<string, string>): Promise<string> {
      const flat = Object.entries(fields).flat();
      return index.produce(accountId, Date.now(), async (stamp) => {
        const id = (await appendScript.run(
          redis,
          1,
          webhookOutboxKey(prefix, accountId),
          stamp,
          ...flat,
        )) as string;
        return id === STALE ? STALE : id;
      });
    },

    /** The backlog over every part's accounts. */
    async stats(now = Date.now()): Promise<OutboxStats> {
      const accounts = await index.all();
      const lengths = await Promise.all(accounts.map((a) => redis.xlen(webhookOutboxKey(prefix, a.account))));
      let unread = 0;
      let pending = 0;
      accounts.forEach((a, i) => {
        if (a.score > now) pending += lengths[i]!;
        else unread += lengths[i]!;
      });
      return { length: unread + pending, unread, pending, backlog: unread + pending };
    },
  };
}

export type WebhookOutbox = ReturnType<typeof webhookOutbox>;
