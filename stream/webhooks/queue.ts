// Pending deliveries in Redis, so retries survive restarts: one hash per delivery (its payload is
// signed again, byte for byte, on every attempt), one sorted set of due times per account and one
// hash of the account's leases, all under the account's hash tag; and an index of the accounts
// scored by their earliest due time, in REDIS_GLOBAL_PARTS parts (common/webhooks/account-index.ts:
// enqueueing touches it before and after writing the delivery, and a claim settles it after).
// A worker claims due deliveries of an account atomically by pushing their score LEASE_MS into the
// future and recording a lease token; only the token holder may finish or reschedule the delivery,
// so two workers never send the same attempt concurrently, and a crashed worker's deliveries come
// back after the lease.
//
// Why per account: with one global due set, the oldest due deliveries were
// claimed first, so one account with thousands of deliveries to a receiver that hangs held every
// delivery slot of every worker and everyone else's events waited behind it. Now a claim takes
// deliveries account by account, fewest in flight first, and never more than an account's room
// (the worker's per-account cap), so one account's backlog cannot crowd out another's.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisScript } from '../../common/clients/redis-script.ts';
import { accountSpace, partSpace } from '../../common/redis-keys/tags.ts';
import { accountIndex, STALE, STAMP_FRESH_LUA } from '../../common/webhooks/account-index.ts';

export const LEASE_MS = 60_000; // well above the 15 s request timeout
export const DELIVERY_TTL_SECONDS = 7 * 24 * 3600; // longer than the whole retry schedule
/** Accounts with due deliveries looked at per claim (earliest due first). */
const CANDIDATE_ACCOUNTS = 100;

export interface Delivery {
  id: string;
  webhook_id: string;
  account_id: string;
  is_test: boolean;
  event_type: string;
  event_id: string;
  payload: string;
  /** Attempts already made. */
  attempt: number;
  first_attempt_at: string | null;
  state: 'pending' | 'done';
}

export type NewDelivery = Omit<Delivery, 'attempt' | 'first_attempt_at' | 'state'>;

/** A claimed delivery: its id and the account whose due set holds it. */
export interface Claimed {
  id: string;
  account: string;
}

// Lua: the earliest score of an account's due set, or '' when it is empty.
const earliestLua = `
local function earliest(set)
  local first = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
  return first[2] or ''
end
`;

// KEYS[1] account due set, KEYS[2] delivery hash; ARGV[1] due score, ARGV[2] id, ARGV[3] ttl,
// ARGV[4] the index stamp, ARGV[5..] fields. A delivery id that exists (pending or done) is never
// enqueued again: fan-out replays are harmless.
const enqueueScript = redisScript(`${STAMP_FRESH_LUA}
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if not stamp_fresh(ARGV[4]) then return '${STALE}' end
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
return 1
`);

// KEYS[1] account due set, KEYS[2] its leases hash; ARGV[1] now, ARGV[2] lease until, ARGV[3]
// token, ARGV[4] limit. Returns the claimed ids, then the set's earliest score after ('' if empty).
const claimScript = redisScript(`${earliestLua}
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[4]))
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  redis.call('HSET', KEYS[2], id, ARGV[3])
end
ids[#ids + 1] = earliest(KEYS[1])
return ids
`);

// KEYS[1] account due set, KEYS[2] its leases hash, KEYS[3] delivery hash; ARGV[1] id, ARGV[2]
// token, ARGV[3] 'done' | 'retry', ARGV[4] next due score, ARGV[5] attempts made, ARGV[6] first
// attempt at, ARGV[7] ttl, ARGV[8] the index stamp of a retry ('' for done).
const finishScript = redisScript(`${STAMP_FRESH_LUA}
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] ~= 'done' and not stamp_fresh(ARGV[8]) then return '${STALE}' end
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('HSET', KEYS[3], 'attempt', ARGV[5])
  redis.call('HSETNX', KEYS[3], 'first_attempt_at', ARGV[6])
end
if ARGV[3] == 'done' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  if redis.call('EXISTS', KEYS[3]) == 1 then
    redis.call('HSET', KEYS[3], 'state', 'done')
    redis.call('HDEL', KEYS[3], 'payload')
    redis.call('EXPIRE', KEYS[3], ARGV[7])
  end
else
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
end
return 1
`);

/** Part `part` of the index of accounts with due deliveries, by their earliest due time. */
export const dueIndexKeys = (prefix: string, part: number) => ({
  order: `${partSpace(prefix, part)}webhook:due-accounts`,
  stamps: `${partSpace(prefix, part)}webhook:due-accounts:stamps`,
});

/** The index of accounts with due deliveries (account-index.ts). */
export const dueIndex = (redis: Redis, prefix: string, parts: number) =>
  accountIndex(redis, 'due deliveries', (part) => dueIndexKeys(prefix, part), parts);

/** An account's due set, its leases, and a delivery of it (all under the account's tag). */
export const deliveryQueueKeys = (prefix: string) => ({
  due: (account: string) => `${accountSpace(prefix, account)}webhook:due:${account}`,
  leases: (account: string) => `${accountSpace(prefix, account)}webhook:leases`,
  delivery: (account: string, id: string) => `${accountSpace(prefix, account)}webhook:delivery:${id}`,
});

/** How many of `limit` slots each account gets: one each per round, in order, within its room. */
function shares(rooms: number[], limit: number): number[] {
  const given = rooms.map(() => 0);
  let left = limit;
  for (let progress = true; left > 0 && progress;) {
    progress = false;
    for (let i = 0; i < rooms.length && left > 0; i++) {
      if (given[i]! < rooms[i]!) {
        given[i]!++;
        left--;
        progress = true;
      }
    }
  }
  return given;
}

export function deliveryQueue(redis: Redis, prefix: string, parts: number) {
  const keys = deliveryQueueKeys(prefix);
  const index = dueIndex(redis, prefix, parts);
  const queue: QueueDeps = { redis, keys, index };

  return {
    index,
    dueKey: keys.due,
    /** Adds a delivery due at `dueAt` (ms); false when this id was already enqueued. */
    enqueue: (delivery: NewDelivery, dueAt: number): Promise<boolean> => enqueue(queue, delivery, dueAt),
    /**
     * Claims up to `limit` due deliveries, at most `roomFor(account)` of each account, accounts with
     * the fewest deliveries in flight (`inFlight`) first; returns them and the lease token.
     */
    claim: (
      limit: number,
      roomFor: (account: string) => number,
      inFlight: (account: string) => number = () => 0,
      now = Date.now(),
    ): Promise<{ claimed: Claimed[]; token: string }> => claim(queue, limit, roomFor, inFlight, now),
    get: (account: string, id: string): Promise<Delivery | null> => getDelivery(queue, account, id),
    /** Ends a claimed delivery (`done`) or schedules its next attempt; false if the lease was lost. */
    finish: (
      claimed: Claimed,
      token: string,
      outcome: { done: true } | { done: false; nextDueAt: number },
      attempts: number,
      firstAttemptAt: string,
    ): Promise<boolean> => finish(queue, claimed, token, outcome, attempts, firstAttemptAt),
  };
}

/** What the queue's operations work on: Redis, its keys, and the index of accounts with due deliveries. */
interface QueueDeps {
  redis: Redis;
  keys: ReturnType<typeof deliveryQueueKeys>;
  index: ReturnType<typeof dueIndex>;
}

async function enqueue(
  { redis, keys, index }: QueueDeps,
  delivery: NewDelivery,
  dueAt: number,
): Promise<boolean> {
  const fields = {
    ...delivery,
    is_test: delivery.is_test ? '1' : '0',
    attempt: '0',
    state: 'pending',
  };
  const account = delivery.account_id;
  // The index first, the delivery, the index again (account-index.ts).
  const result = await index.produce(account, dueAt, async (stamp) => {
    const reply = await enqueueScript.run(
      redis,
      2,
      keys.due(account),
      keys.delivery(account, delivery.id),
      String(dueAt),
      delivery.id,
      String(DELIVERY_TTL_SECONDS),
      stamp,
      ...Object.entries(fields).flat(),
    );
    return reply === STALE ? STALE : reply;
  });
  return result === 1;
}

async function claim(
  { redis, keys, index }: QueueDeps,
  limit: number,
  roomFor: (account: string) => number,
  inFlight: (account: string) => number,
  now: number,
): Promise<{ claimed: Claimed[]; token: string }> {
  const token = randomBytes(8).toString('hex');
  const due = (await index.due(now, CANDIDATE_ACCOUNTS)).slice(0, CANDIDATE_ACCOUNTS);
  // Stable sort: equal in-flight counts keep the index order (earliest due first).
  const candidates = due
    .map((found) => ({ found, room: Math.min(roomFor(found.account), limit) }))
    .filter((c) => c.room > 0)
    .sort((x, y) => inFlight(x.found.account) - inFlight(y.found.account));
  const given = shares(
    candidates.map((c) => c.room),
    limit,
  );
  const claimed: Claimed[] = [];
  await Promise.all(
    candidates.map(async ({ found }, i) => {
      const { account } = found;
      const max = given[i]!;
      // An account without a share this round is looked at again next time.
      if (max === 0) return;
      const reply = (await claimScript.run(
        redis,
        2,
        keys.due(account),
        keys.leases(account),
        String(now),
        String(now + LEASE_MS),
        token,
        String(max),
      )) as string[];
      const next = reply[reply.length - 1]!;
      for (const id of reply.slice(0, -1)) claimed.push({ id, account });
      await index.settle(found, next === '' ? null : Number(next), now);
    }),
  );
  return { claimed, token };
}

async function getDelivery(
  { redis, keys }: QueueDeps,
  account: string,
  id: string,
): Promise<Delivery | null> {
  const f = await redis.hgetall(keys.delivery(account, id));
  if (!f.id) return null;
  return {
    id: f.id,
    webhook_id: f.webhook_id!,
    account_id: f.account_id!,
    is_test: f.is_test === '1',
    event_type: f.event_type!,
    event_id: f.event_id ?? '',
    payload: f.payload ?? '',
    attempt: Number(f.attempt ?? 0),
    first_attempt_at: f.first_attempt_at ?? null,
    state: f.state === 'done' ? 'done' : 'pending',
  };
}

async function finish(
  { redis, keys, index }: QueueDeps,
  claimed: Claimed,
  token: string,
  outcome: { done: true } | { done: false; nextDueAt: number },
  attempts: number,
  firstAttemptAt: string,
): Promise<boolean> {
  const step = async (stamp: string) => {
    const reply = await finishScript.run(
      redis,
      3,
      keys.due(claimed.account),
      keys.leases(claimed.account),
      keys.delivery(claimed.account, claimed.id),
      claimed.id,
      token,
      outcome.done ? 'done' : 'retry',
      String(outcome.done ? 0 : outcome.nextDueAt),
      String(attempts),
      firstAttemptAt,
      String(DELIVERY_TTL_SECONDS),
      stamp,
    );
    return reply === STALE ? STALE : reply;
  };
  // A retry may be due before the account's time in the index: the index first, then the
  // reschedule, then the index again (account-index.ts). Done only removes: no index step.
  const result = outcome.done
    ? await step('')
    : await index.produce(claimed.account, outcome.nextDueAt, step);
  return result === 1;
}

export type DeliveryQueue = ReturnType<typeof deliveryQueue>;
