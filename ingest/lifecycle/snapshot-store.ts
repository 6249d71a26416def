// Snapshots in Redis (docs/lifecycle.md, "Snapshots"): per account, mode and snapshot id, a record
// (hash), the part numbers received (set) and the external ids declared (set), all under the
// account's hash tag. Parts arrive in any
// order; the request that completes the set claims the computation atomically, so two final parts
// racing each other compute once. Collecting snapshots live 24 h from their first part; a finished
// one is kept 7 days (its outcome, and the withdrawals of a held snapshot awaiting confirmation).
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import { redisScript } from '../../common/clients/redis-script.ts';
import { assertOneSlot } from '../../common/redis-keys/slot.ts';
import { accountSpace } from '../../common/redis-keys/tags.ts';
import type { snapshotRecordSchema } from './schemas.ts';

export const COLLECTING_TTL_SECONDS = 24 * 3600;
export const FINISHED_TTL_SECONDS = 7 * 24 * 3600;

/** See addPartScript; `received` is the ids held instead of the parts when `too_large`. */
export type AddPartState = 'mismatch' | 'done' | 'too_large' | 'complete' | 'collecting';

/** What GET /listings/snapshots/{id} answers (schemas.ts): `active` and `withdrawn` on completion. */
export type SnapshotRecord = z.infer<typeof snapshotRecordSchema>;
type SnapshotStatus = SnapshotRecord['status'];

// KEYS: record, parts set, ids set. ARGV: parts, part, ttl, created_at, most ids of the snapshot,
// then the external ids. Returns {state, received parts count, ids stored (1 when this part's ids
// were added, 0 when nothing was)}: state 'mismatch' (other parts count), 'done' (finished
// already), 'too_large' (the snapshot's ids and this part's would pass the most: nothing added;
// the second value is then the ids held), 'complete' (this part completed it: the caller
// computes), 'collecting'.
const addPartScript = redisScript(`
local parts = redis.call('HGET', KEYS[1], 'parts')
if parts and parts ~= ARGV[1] then return {'mismatch', 0, 0} end
local held = redis.call('SCARD', KEYS[3])
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 0 and held + #ARGV - 5 > tonumber(ARGV[5]) then
  return {'too_large', held, 0}
end
if not parts then
  redis.call('HSET', KEYS[1], 'parts', ARGV[1], 'status', 'collecting', 'created_at', ARGV[4])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'collecting' then return {'done', redis.call('SCARD', KEYS[2]), 0} end
local stored = 0
if redis.call('SADD', KEYS[2], ARGV[2]) == 1 then
  stored = 1
  for i = 6, #ARGV, 1000 do
    redis.call('SADD', KEYS[3], unpack(ARGV, i, math.min(i + 999, #ARGV)))
  end
end
redis.call('EXPIRE', KEYS[2], ARGV[3])
if #ARGV >= 6 then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
local received = redis.call('SCARD', KEYS[2])
if received == tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'status', 'computing')
  return {'complete', received, stored}
end
return {'collecting', received, stored}
`);

// KEYS: record, withdrawals list. ARGV: now. A held snapshot becomes applied (confirmed).
const confirmScript = redisScript(
  `
if redis.call('HGET', KEYS[1], 'status') ~= 'held' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'applied', 'confirmed_at', ARGV[1])
redis.call('DEL', KEYS[2])
return 1
`,
  { freesMemory: true },
);

/**
 * A snapshot's record (hash), parts received (set), external ids declared (set), withdrawals (list):
 * under the account's hash tag, so its scripts and transactions touch one slot on a cluster.
 */
export function snapshotKeys(prefix: string, account: string, isTest: boolean, id: string) {
  const base = `${accountSpace(prefix, account)}snapshot:${account}:${isTest ? 'test' : 'live'}:${id}`;
  return { record: base, parts: `${base}:parts`, ids: `${base}:ids`, withdraw: `${base}:withdraw` };
}

type SnapshotKeys = ReturnType<typeof snapshotKeys>;

export function snapshotStore(redis: Redis, prefix: string) {
  const keys = (account: string, isTest: boolean, id: string) => snapshotKeys(prefix, account, isTest, id);
  return {
    keys,
    addPart: (account: string, isTest: boolean, id: string, part: SnapshotPart) =>
      addPart(redis, keys(account, isTest, id), part),
    /** Whether this part was received already (its ids are held: sending it again adds none). */
    hasPart: async (account: string, isTest: boolean, id: string, part: number): Promise<boolean> =>
      (await redis.sismember(keys(account, isTest, id).parts, part)) === 1,
    declared: (account: string, isTest: boolean, id: string, externalIds: string[]) =>
      declared(redis, keys(account, isTest, id), externalIds),
    read: (account: string, isTest: boolean, id: string) => read(redis, keys(account, isTest, id), id),
    finish: (account: string, isTest: boolean, id: string, outcome: SnapshotOutcome) =>
      finish(redis, keys(account, isTest, id), outcome),
    reopen: (account: string, isTest: boolean, id: string, part: number) =>
      reopen(redis, keys(account, isTest, id), part),
    pendingWithdrawals: (account: string, isTest: boolean, id: string) =>
      pendingWithdrawals(redis, keys(account, isTest, id)),
    /** Held → applied, once its withdrawals are published. */
    markConfirmed: async (account: string, isTest: boolean, id: string, now: string): Promise<void> => {
      const k = keys(account, isTest, id);
      await confirmScript.run(redis, 2, k.record, k.withdraw, now);
    },
  };
}

export type SnapshotStore = ReturnType<typeof snapshotStore>;

interface SnapshotPart {
  part: number;
  parts: number;
  externalIds: string[];
  now: string;
  maxIds: number;
}

interface SnapshotOutcome {
  status: 'applied' | 'held';
  completedAt: string;
  active: number;
  withdraw: string[];
}

async function addPart(
  redis: Redis,
  k: SnapshotKeys,
  part: SnapshotPart,
): Promise<{ state: AddPartState; received: number; stored: boolean }> {
  const [state, received, stored] = (await addPartScript.run(
    redis,
    3,
    k.record,
    k.parts,
    k.ids,
    part.parts,
    part.part,
    COLLECTING_TTL_SECONDS,
    part.now,
    part.maxIds,
    ...part.externalIds,
  )) as [string, number, number];
  return { state: state as AddPartState, received: Number(received), stored: stored === 1 };
}

/** Which of `externalIds` the snapshot declared. */
async function declared(redis: Redis, k: SnapshotKeys, externalIds: string[]): Promise<boolean[]> {
  const out: boolean[] = [];
  for (let i = 0; i < externalIds.length; i += 1_000) {
    const chunk = externalIds.slice(i, i + 1_000);
    const flags = await redis.smismember(k.ids, ...chunk);
    out.push(...flags.map((f) => f === 1));
  }
  return out;
}

async function read(redis: Redis, k: SnapshotKeys, id: string): Promise<SnapshotRecord | null> {
  const [fields, parts, ids] = await Promise.all([
    redis.hgetall(k.record),
    redis.smembers(k.parts),
    redis.scard(k.ids),
  ]);
  if (!fields.parts) return null;
  const number = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  return {
    snapshot_id: id,
    status: fields.status as SnapshotStatus,
    parts: Number(fields.parts),
    parts_received: parts.map(Number).sort((a, b) => a - b),
    external_ids: fields.external_ids !== undefined ? Number(fields.external_ids) : ids,
    created_at: fields.created_at!,
    ...(fields.completed_at ? { completed_at: fields.completed_at } : {}),
    ...(fields.active !== undefined
      ? { active: number(fields.active), withdrawn: number(fields.withdrawn) }
      : {}),
    ...(fields.confirmed_at ? { confirmed_at: fields.confirmed_at } : {}),
  };
}

/** Records the outcome; a held snapshot keeps its withdrawals for the confirmation. */
async function finish(redis: Redis, k: SnapshotKeys, outcome: SnapshotOutcome): Promise<void> {
  assertOneSlot([k.record, k.ids, k.parts, k.withdraw], 'finishing a snapshot');
  const multi = redis.multi();
  multi.hset(k.record, {
    status: outcome.status,
    completed_at: outcome.completedAt,
    active: outcome.active,
    withdrawn: outcome.withdraw.length,
    external_ids: await redis.scard(k.ids),
  });
  if (outcome.status === 'held' && outcome.withdraw.length) multi.rpush(k.withdraw, ...outcome.withdraw);
  multi.del(k.ids);
  for (const key of [k.record, k.parts, k.withdraw]) multi.expire(key, FINISHED_TTL_SECONDS);
  await multi.exec();
}

/** Back to collecting after a failed computation, so the final part can be sent again. */
async function reopen(redis: Redis, k: SnapshotKeys, part: number): Promise<void> {
  assertOneSlot([k.record, k.parts], 'reopening a snapshot');
  await redis.multi().hset(k.record, 'status', 'collecting').srem(k.parts, part).exec();
}

/** A held snapshot's withdrawals (null when it is not held). */
async function pendingWithdrawals(redis: Redis, k: SnapshotKeys): Promise<string[] | null> {
  if ((await redis.hget(k.record, 'status')) !== 'held') return null;
  return redis.lrange(k.withdraw, 0, -1);
}
