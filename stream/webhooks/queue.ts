// Pending deliveries in Redis, so retries survive restarts: one hash per delivery (its payload is
// signed again, byte for byte, on every attempt), one sorted set of due times per account, and an
// index of the accounts scored by their earliest due time. A worker claims due deliveries
// atomically by pushing their score LEASE_MS into the future and recording a lease token; only the
// token holder may finish or reschedule the delivery, so two workers never send the same attempt
// concurrently, and a crashed worker's deliveries come back after the lease.
//
// Why per account: with one global due set, the oldest due deliveries were
// claimed first, so one account with thousands of deliveries to a receiver that hangs held every
// delivery slot of every worker and everyone else's events waited behind it. Now a claim takes
// deliveries account by account, fewest in flight first, and never more than an account's room
// (the worker's per-account cap), so one account's backlog cannot crowd out another's.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisScript } from '../../common/clients/redis-script.ts';

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

// Keeps an account's entry in the index at the earliest score of its due set (or removes it).
const refreshIndex = `
local function refresh(set, index, account)
  local first = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
  if first[1] then redis.call('ZADD', index, first[2], account) else redis.call('ZREM', index, account) end
end
`;

// KEYS[1] account due set, KEYS[2] delivery hash, KEYS[3] index; ARGV[1] due score, ARGV[2] id,
// ARGV[3] ttl, ARGV[4] account, ARGV[5..] fields. A delivery id that exists (pending or done) is
// never enqueued again: fan-out replays are harmless.
const enqueueScript = redisScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], 'LT', ARGV[1], ARGV[4])
return 1
`);

// KEYS[1] index, KEYS[2] leases hash, KEYS[3..] the candidates' due sets; ARGV[1] now, ARGV[2]
// lease until, ARGV[3] token, ARGV[4] limit, then per candidate its account and its room. One
// delivery per account per round, in the order given, until the limit or every room is used.
// Returns id, account, id, account, …
const claimScript = redisScript(`${refreshIndex}
local n = #KEYS - 2
local rooms, left, claimed = {}, tonumber(ARGV[4]), {}
for i = 1, n do rooms[i] = tonumber(ARGV[4 + 2 * i]) end
local progress = true
while left > 0 and progress do
  progress = false
  for i = 1, n do
    if left > 0 and rooms[i] > 0 then
      local ids = redis.call('ZRANGEBYSCORE', KEYS[2 + i], '-inf', ARGV[1], 'LIMIT', 0, 1)
      if ids[1] then
        redis.call('ZADD', KEYS[2 + i], ARGV[2], ids[1])
        redis.call('HSET', KEYS[2], ids[1], ARGV[3])
        claimed[#claimed + 1] = ids[1]
        claimed[#claimed + 1] = ARGV[3 + 2 * i]
        rooms[i] = rooms[i] - 1
        left = left - 1
        progress = true
      else
        rooms[i] = 0
      end
    end
  end
end
for i = 1, n do refresh(KEYS[2 + i], KEYS[1], ARGV[3 + 2 * i]) end
return claimed
`);

// KEYS[1] account due set, KEYS[2] leases hash, KEYS[3] delivery hash, KEYS[4] index; ARGV[1] id,
// ARGV[2] token, ARGV[3] 'done' | 'retry', ARGV[4] next due score, ARGV[5] attempts made,
// ARGV[6] first attempt at, ARGV[7] ttl, ARGV[8] account.
const finishScript = redisScript(`${refreshIndex}
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
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
refresh(KEYS[1], KEYS[4], ARGV[8])
return 1
`);

/** The index of accounts with due deliveries, the leases, an account's due set, a delivery. */
export const deliveryQueueKeys = (prefix: string) => ({
  index: `${prefix}webhook:due-accounts`,
  leases: `${prefix}webhook:leases`,
  due: (account: string) => `${prefix}webhook:due:${account}`,
  delivery: (id: string) => `${prefix}webhook:delivery:${id}`,
});

export function deliveryQueue(redis: Redis, prefix: string) {
  const {
    index: indexKey,
    leases: leasesKey,
    due: dueKey,
    delivery: deliveryKey,
  } = deliveryQueueKeys(prefix);

  return {
    indexKey,
    dueKey,
    /** Adds a delivery due at `dueAt` (ms); false when this id was already enqueued. */
    async enqueue(delivery: NewDelivery, dueAt: number): Promise<boolean> {
      const fields = {
        ...delivery,
        is_test: delivery.is_test ? '1' : '0',
        attempt: '0',
        state: 'pending',
      };
      const result = await enqueueScript.run(
        redis,
        3,
        dueKey(delivery.account_id),
        deliveryKey(delivery.id),
        indexKey,
        String(dueAt),
        delivery.id,
        String(DELIVERY_TTL_SECONDS),
        delivery.account_id,
        ...Object.entries(fields).flat(),
      );
      return result === 1;
    },

    /**
     * Claims up to `limit` due deliveries, at most `roomFor(account)` of each account, accounts with
     * the fewest deliveries in flight (`inFlight`) first; returns them and the lease token.
     */
    async claim(
      limit: number,
      roomFor: (account: string) => number,
      inFlight: (account: string) => number = () => 0,
      now = Date.now(),
    ): Promise<{ claimed: Claimed[]; token: string }> {
      const token = randomBytes(8).toString('hex');
      const due = await redis.zrangebyscore(indexKey, '-inf', now, 'LIMIT', 0, CANDIDATE_ACCOUNTS);
      // Stable sort: equal in-flight counts keep the index order (earliest due first).
      const candidates = due
        .map((account) => ({ account, room: Math.min(roomFor(account), limit) }))
        .filter((c) => c.room > 0)
        .sort((x, y) => inFlight(x.account) - inFlight(y.account));
      if (!candidates.length) return { claimed: [], token };
      const reply = (await claimScript.run(
        redis,
        2 + candidates.length,
        indexKey,
        leasesKey,
        ...candidates.map((c) => dueKey(c.account)),
        String(now),
        String(now + LEASE_MS),
        token,
        String(limit),
        ...candidates.flatMap((c) => [c.account, String(c.room)]),
      )) as string[];
      const claimed: Claimed[] = [];
      for (let i = 0; i + 1 < reply.length; i += 2) claimed.push({ id: reply[i]!, account: reply[i + 1]! });
      return { claimed, token };
    },

    async get(id: string): Promise<Delivery | null> {
      const f = await redis.hgetall(deliveryKey(id));
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
    },

    /** Ends a claimed delivery (`done`) or schedules its next attempt; false if the lease was lost. */
    async finish(
      claimed: Claimed,
      token: string,
      outcome: { done: true } | { done: false; nextDueAt: number },
      attempts: number,
      firstAttemptAt: string,
    ): Promise<boolean> {
      const result = await finishScript.run(
        redis,
        4,
        dueKey(claimed.account),
        leasesKey,
        deliveryKey(claimed.id),
        indexKey,
        claimed.id,
        token,
        outcome.done ? 'done' : 'retry',
        String(outcome.done ? 0 : outcome.nextDueAt),
        String(attempts),
        firstAttemptAt,
        String(DELIVERY_TTL_SECONDS),
        claimed.account,
      );
      return result === 1;
    },
  };
}

export type DeliveryQueue = ReturnType<typeof deliveryQueue>;
