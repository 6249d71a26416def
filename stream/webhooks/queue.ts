// Pending deliveries in Redis, so retries survive restarts: one hash per delivery (its payload is
// signed again, byte for byte, on every attempt) and a sorted set scored by due time. A worker
// claims due deliveries atomically by pushing their score LEASE_MS into the future and recording a
// lease token; only the token holder may finish or reschedule the delivery, so two workers never
// send the same attempt concurrently, and a crashed worker's deliveries come back after the lease.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisScript } from '../../common/clients/redis-script.ts';

export const LEASE_MS = 60_000; // well above the 15 s request timeout
const DELIVERY_TTL_SECONDS = 7 * 24 * 3600; // longer than the whole retry schedule

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

// KEYS[1] due set, KEYS[2] delivery hash; ARGV[1] due score, ARGV[2] id, ARGV[3] ttl, ARGV[4..] fields.
// A delivery id that exists (pending or done) is never enqueued again: fan-out replays are harmless.
const enqueueScript = redisScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
return 1
`);

// KEYS[1] due set, KEYS[2] leases hash; ARGV[1] now, ARGV[2] lease until, ARGV[3] limit, ARGV[4] token.
const claimScript = redisScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  redis.call('HSET', KEYS[2], id, ARGV[4])
end
return ids
`);

// KEYS[1] due set, KEYS[2] leases hash, KEYS[3] delivery hash; ARGV[1] id, ARGV[2] token,
// ARGV[3] 'done' | 'retry', ARGV[4] next due score, ARGV[5] attempts made, ARGV[6] first attempt at, ARGV[7] ttl.
const finishScript = redisScript(`
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
return 1
`);

export function deliveryQueue(redis: Redis, prefix: string) {
  const dueKey = `${prefix}webhook:due`;
  const leasesKey = `${prefix}webhook:leases`;
  const deliveryKey = (id: string) => `${prefix}webhook:delivery:${id}`;

  return {
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
        2,
        dueKey,
        deliveryKey(delivery.id),
        String(dueAt),
        delivery.id,
        String(DELIVERY_TTL_SECONDS),
        ...Object.entries(fields).flat(),
      );
      return result === 1;
    },

    /** Claims up to `limit` due deliveries; returns their ids and the lease token. */
    async claim(limit: number, now = Date.now()): Promise<{ ids: string[]; token: string }> {
      const token = randomBytes(8).toString('hex');
      const ids = (await claimScript.run(
        redis,
        2,
        dueKey,
        leasesKey,
        String(now),
        String(now + LEASE_MS),
        String(limit),
        token,
      )) as string[];
      return { ids, token };
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
      id: string,
      token: string,
      outcome: { done: true } | { done: false; nextDueAt: number },
      attempts: number,
      firstAttemptAt: string,
    ): Promise<boolean> {
      const result = await finishScript.run(
        redis,
        3,
        dueKey,
        leasesKey,
        deliveryKey(id),
        id,
        token,
        outcome.done ? 'done' : 'retry',
        String(outcome.done ? 0 : outcome.nextDueAt),
        String(attempts),
        firstAttemptAt,
        String(DELIVERY_TTL_SECONDS),
      );
      return result === 1;
    },
  };
}

export type DeliveryQueue = ReturnType<typeof deliveryQueue>;
