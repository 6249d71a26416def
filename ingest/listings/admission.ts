// The Redis side of a bulk request: two script calls before the publish and one after it:
// - admit: (1) claims the request's listing ids and reserves the daily quota for those that are new,
//   atomically — or leaves nothing behind when an id is still being published by another request
//   (a retriable 409) or the quota has no room (429); then (2) records the batch;
// - confirm (after the broker acknowledged): the batch's claims count, for the duplicate window
//   (one write for the whole batch: seen-store.ts);
// - abandon (the publish failed): claims, quota and batch record are given back, so a retry is not
//   told "duplicate" of listings that were never stored.
// The claims, seen ids and quota are one script; the batch record, its pending set and the account's
// outbox (common/batches.ts) are recorded in a call of their own. Both are under the account's hash
// tag, but a claim may have to be retried with the claims keys of the batches holding its ids, and
// the record step of a batch that created nothing touches the outbox index first (as every outbox
// producer does: common/webhooks/account-index.ts). Order: claims first, the record second. A
// process that dies between them leaves claims that stop counting after CLAIM_TTL_SECONDS (never
// confirmed) and a quota reservation not given back (as a crash before the publish always did), and
// no record: the client got no answer, and its retry claims the ids again.
import type { Redis } from 'ioredis';
import { batchHeaderFields, batchKeys, BATCH_TTL_SECONDS, type NewBatch } from '../../common/batches.ts';
import { redisScript } from '../../common/clients/redis-script.ts';
import type { KeyMode } from '../../common/auth/api-key-format.ts';
import { assertOneSlot } from '../../common/redis-keys/slot.ts';
import { STALE, STAMP_FRESH_LUA } from '../../common/webhooks/account-index.ts';
import { webhookOutbox } from '../../common/webhooks/outbox.ts';
import { quotaExceeded, quotaKey, reserveQuotaLua, utcDay } from '../quota.ts';
import {
  CLAIM_TTL_SECONDS,
  claimSeenLua,
  PENDING_PREFIX,
  claimsKey,
  pendingClaim,
  SEEN_TTL_SECONDS,
  seenHolder,
  seenKey,
  seenStore,
  startClaimsLua,
  type SeenHolder,
} from './seen-store.ts';

const FIXED_KEYS = 2;

// KEYS[1] quota hash, KEYS[2] the batch's claims key, KEYS[3..2+n] the candidates' seen keys,
// KEYS[3+n..] claims keys of batches known to hold some of them. ARGV[1] claim, ARGV[2] seen ttl,
// ARGV[3] quota field, ARGV[4] quota limit, ARGV[5] claims ttl, ARGV[6] n, ARGV[7] the batch ids of
// those claims keys, in KEYS order, comma-separated.
// Returns {'retry', {holders}} (nothing written: a candidate is held by a batch whose claims key
// was not given), {'in_flight', {positions}}, {'quota', used, requested} or {'ok', holder or false, ...}.
const claimScript = redisScript(`${reserveQuotaLua}${claimSeenLua}${startClaimsLua}
local n = tonumber(ARGV[6])
local claims_of, k = {}, ${FIXED_KEYS} + n + 1
for holder in string.gmatch(ARGV[7], '[^,]+') do
  claims_of[holder] = KEYS[k]
  k = k + 1
end
local holders, claimed, busy, unknown = {}, {}, {}, {}
-- One claim per id: takes it when free (or its holder died), else says who holds it.
for i = 1, n do
  local v = claim_seen(KEYS[${FIXED_KEYS} + i], ARGV[1], ARGV[2], claims_of)
  holders[i] = v
  if type(v) == 'table' then unknown[#unknown + 1] = v[1]
  elseif not v then claimed[#claimed + 1] = i
  elseif string.sub(v, 1, ${PENDING_PREFIX.length}) == '${PENDING_PREFIX}' then busy[#busy + 1] = i end
end
local function unclaim()
  for _, i in ipairs(claimed) do redis.call('DEL', KEYS[${FIXED_KEYS} + i]) end
end
if #unknown > 0 then unclaim() return {'retry', unknown} end
if #busy > 0 then unclaim() return {'in_flight', busy} end
if #claimed > 0 then
  local quota = reserve_quota(KEYS[1], ARGV[3], #claimed, tonumber(ARGV[4]))
  if quota[1] == 0 then unclaim() return {'quota', quota[2], #claimed} end
  start_claims(KEYS[2], ARGV[5])
end
local out = {'ok'}
for i = 1, n do out[i + 1] = holders[i] end
return out
`);

// KEYS[1] batch record, KEYS[2] its pending set, KEYS[3] the account's outbox (one account's tag).
// ARGV[1] batch ttl, ARGV[2] created count, ARGV[3] duplicates, ARGV[4] created_at, ARGV[5] how many
// header field/value arguments follow, then those, then the created listing ids — or, when it
// created none, the outbox index stamp: such a batch is completed at once, its event appended, and
// the answer is 'stale' (nothing written) when the stamp is too old (account-index.ts).
const recordBatchScript = redisScript(`${STAMP_FRESH_LUA}
local created, h = tonumber(ARGV[2]), tonumber(ARGV[5])
if created == 0 and not stamp_fresh(ARGV[6 + h]) then return '${STALE}' end
local status = 'processing'
if created == 0 then status = 'completed' end
redis.call('HSET', KEYS[1], 'status', status, 'created', created, 'duplicates', ARGV[3], unpack(ARGV, 6, 5 + h))
redis.call('EXPIRE', KEYS[1], ARGV[1])
if created == 0 then
  redis.call('HSET', KEYS[1], 'completed_at', ARGV[4])
  redis.call('XADD', KEYS[3], '*', 'type', 'listings.batch.completed', 'batch_id', redis.call('HGET', KEYS[1], 'batch_id'),
    'account_id', redis.call('HGET', KEYS[1], 'account_id'), 'at', ARGV[4])
else
  for i = 6 + h, #ARGV, 1000 do redis.call('SADD', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV))) end
  redis.call('EXPIRE', KEYS[2], ARGV[1])
end
return 1
`);

// KEYS[1] quota hash, KEYS[2] the batch's claims key, KEYS[3..] claimed seen keys. ARGV[1] quota
// field, ARGV[2] amount reserved. Only gives back, so it runs at the memory ceiling too.
const unclaimScript = redisScript(
  `
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
if tonumber(ARGV[2]) > 0 then redis.call('HINCRBY', KEYS[1], ARGV[1], -tonumber(ARGV[2])) end
return 1
`,
  { freesMemory: true },
);

/** Claim calls of one request when other requests keep taking its ids over in between. */
const TRIES = 5;

/** A bulk request as the admission sees it. */
export interface AdmissionRequest {
  batch: Omit<NewBatch, 'created_ids'>;
  owner: { accountId: string; mode: KeyMode };
  /** Distinct listing ids of the valid listings, in request order. */
  candidates: string[];
  /** The daily listings quota of the calling key. */
  limit: number;
  at: Date;
}

export type Admission =
  | { kind: 'admitted'; holders: (SeenHolder | null)[]; created: string[] }
  | { kind: 'in_flight'; positions: number[] };

type ClaimReply = [string, ...unknown[]];

// A benchmark build without duplicate detection (common/bench-build.ts): the quota of every
// candidate reserved, no claims. KEYS[1] quota hash; ARGV[1] quota field, ARGV[2] amount, ARGV[3] limit.
const quotaOnlyScript = redisScript(`${reserveQuotaLua}
local quota = reserve_quota(KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
if quota[1] == 0 then return {'quota', quota[2], tonumber(ARGV[2])} end
return {'ok'}
`);

/** The batch and account an admission is about (what giving it back needs). */
type AdmittedBatch = { batch: { batch_id: string }; owner: AdmissionRequest['owner']; at: Date };

/** What the admission's steps share. */
interface AdmissionContext {
  redis: Redis;
  prefix: string;
  seen: ReturnType<typeof seenStore>;
  outboxIndex: ReturnType<typeof webhookOutbox>['index'];
  dedupe: boolean;
}

/**
 * `dedupe: false` (a benchmark build only: common/bench-build.ts) claims nothing and remembers
 * nothing: every valid listing of a request is created, however often it was sent before.
 */
export function admissionStore(redis: Redis, prefix: string, parts: number, { dedupe = true } = {}) {
  const context: AdmissionContext = {
    redis,
    prefix,
    dedupe,
    seen: seenStore(redis, prefix),
    outboxIndex: webhookOutbox(redis, prefix, parts).index,
  };
  return {
    admit: (request: AdmissionRequest) => admit(context, request),
    /** The publish succeeded: the batch's claims count for the duplicate window. */
    confirm: async (accountId: string, created: string[], batchId: string) => {
      if (dedupe) await context.seen.confirm(accountId, created, batchId);
    },
    abandon: (request: AdmittedBatch, created: string[]) => abandon(context, request, created),
  };
}

export type AdmissionStore = ReturnType<typeof admissionStore>;

const accountKeys = (prefix: string, request: AdmittedBatch) => ({
  quota: quotaKey(prefix, request.owner.accountId, request.owner.mode, utcDay(request.at)),
  claims: claimsKey(prefix, request.owner.accountId, request.batch.batch_id),
});

/**
 * For each candidate: null when this request claimed it (it is new), else who holds it; the
 * quota of the new ones is reserved and the batch recorded. Nothing is written when a candidate
 * is in flight elsewhere (its positions in `candidates` are returned) or on quota_exceeded (thrown).
 */
async function admit(context: AdmissionContext, request: AdmissionRequest): Promise<Admission> {
  const reply = await claim(context, request);
  if (reply[0] === 'in_flight') {
    return { kind: 'in_flight', positions: (reply[1] as number[]).map((p) => p - 1) };
  }
  if (reply[0] === 'quota') {
    const [, used, requested] = reply as [string, number, number];
    throw quotaExceeded('listings', { limit: request.limit, used, requested, at: request.at });
  }
  const holders = request.candidates.map((_, i): SeenHolder | null => {
    const value = reply[i + 1];
    return typeof value === 'string' ? seenHolder(value) : null;
  });
  const created = request.candidates.filter((_, i) => !holders[i]);
  try {
    await recordBatch(context, request, created);
  } catch (error) {
    await giveBackClaims(context, request, created).catch(() => undefined); // they expire unconfirmed anyway
    throw error;
  }
  return { kind: 'admitted', holders, created };
}

/**
 * Claims the candidates. A claim names its batch only, so the claims keys of the batches holding
 * them are found by trying: a call meeting a holder it was not given the key of changes nothing
 * and names it, and the next call is given it too (a request that meets no held id: one call).
 */
async function claim(
  { redis, prefix, dedupe }: AdmissionContext,
  request: AdmissionRequest,
): Promise<ClaimReply> {
  if (!request.candidates.length) return ['ok']; // nothing to claim nor to count
  if (!dedupe) return reserveOnly(redis, accountKeys(prefix, request).quota, request);
  const { accountId } = request.owner;
  const keys = accountKeys(prefix, request);
  const seenKeys = request.candidates.map((id) => seenKey(prefix, accountId, id));
  const holders = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    const reply = (await claimScript.run(
      redis,
      FIXED_KEYS + seenKeys.length + holders.size,
      keys.quota,
      keys.claims,
      ...seenKeys,
      ...[...holders].map((batchId) => claimsKey(prefix, accountId, batchId)),
      pendingClaim(request.batch.batch_id),
      SEEN_TTL_SECONDS,
      'listings',
      request.limit,
      CLAIM_TTL_SECONDS,
      seenKeys.length,
      [...holders].join(','),
    )) as ClaimReply;
    if (reply[0] !== 'retry') return reply;
    const unknown = reply[1] as string[];
    for (const holder of unknown) holders.add(holder);
    if (attempt >= TRIES) {
      // Claims that kept changing hands: in flight elsewhere, for the client to retry shortly.
      const values = await redis.mget(seenKeys);
      const positions = values.flatMap((v, i) =>
        v !== null && unknown.some((holder) => v === pendingClaim(holder)) ? [i + 1] : [],
      );
      return ['in_flight', positions.length ? positions : [1]];
    }
  }
}

/** Records the batch (step 2): its new ids pending, or completed at once with its event. */
async function recordBatch(
  { redis, prefix, outboxIndex }: AdmissionContext,
  request: AdmissionRequest,
  created: string[],
): Promise<void> {
  const batch = batchKeys(prefix, request.owner.accountId, request.batch.batch_id);
  const header = Object.entries(batchHeaderFields(request.batch, request.at.toISOString())).flat();
  const run = (tail: string[]) =>
    recordBatchScript.run(
      redis,
      3,
      batch.record,
      batch.pending,
      batch.outbox,
      BATCH_TTL_SECONDS,
      created.length,
      request.batch.duplicates + request.candidates.length - created.length,
      request.at.toISOString(),
      header.length,
      ...header,
      ...tail,
    );
  if (created.length) {
    await run(created);
    return;
  }
  await outboxIndex.produce(request.owner.accountId, Date.now(), async (stamp) => {
    const reply = await run([stamp]);
    return reply === STALE ? STALE : reply;
  });
}

/**
 * The publish failed: gives back what admit took. The claims and quota first (a retry may then
 * claim the ids at once), the batch record second: a process dying in between leaves a record
 * nobody was told of, which expires.
 */
async function abandon(context: AdmissionContext, request: AdmittedBatch, created: string[]) {
  await giveBackClaims(context, request, created);
  const batch = batchKeys(context.prefix, request.owner.accountId, request.batch.batch_id);
  assertOneSlot([batch.record, batch.pending], 'abandoning a batch');
  await context.redis.del(batch.record, batch.pending);
}

async function giveBackClaims(
  { redis, prefix }: AdmissionContext,
  request: AdmittedBatch,
  created: string[],
) {
  const keys = accountKeys(prefix, request);
  await unclaimScript.run(
    redis,
    2 + created.length,
    keys.quota,
    keys.claims,
    ...created.map((id) => seenKey(prefix, request.owner.accountId, id)),
    'listings',
    created.length,
  );
}

/** A benchmark build's claim without duplicate detection: the candidates' quota only. */
async function reserveOnly(redis: Redis, quota: string, request: AdmissionRequest): Promise<ClaimReply> {
  const args = ['listings', request.candidates.length, request.limit];
  return (await quotaOnlyScript.run(redis, 1, quota, ...args)) as ClaimReply;
}
