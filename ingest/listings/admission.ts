// The Redis side of a bulk request, in one script call before the publish and one after it:
// - admit: claims the request's listing ids, reserves the daily quota for those that are new and
//   records the batch, atomically — or leaves nothing behind when an id is still being published
//   by another request (a retriable 409) or the quota has no room (429);
// - confirm (after the broker acknowledged): the batch's claims count, for the duplicate window
//   (one write for the whole batch: seen-store.ts);
// - abandon (the publish failed): claims, quota and batch record are given back, so a retry is not
//   told "duplicate" of listings that were never stored.
// Every key shares the prefix's hash tag, so the multi-key scripts also run on Redis Cluster. The
// keys and values are those of their families: seen-store.ts, ../quota.ts, common/batches.ts.
import type { Redis } from 'ioredis';
import { batchHeaderFields, batchKeys, BATCH_TTL_SECONDS, type NewBatch } from '../../common/batches.ts';
import { redisScript } from '../../common/clients/redis-script.ts';
import type { KeyMode } from '../../common/auth/api-key-format.ts';
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

const FIXED_KEYS = 5;

// KEYS[1] quota hash, KEYS[2] batch record, KEYS[3] its pending set, KEYS[4] outbox, KEYS[5] the
// batch's claims key, KEYS[6..] the candidates' seen keys. ARGV[1] claim, ARGV[2] seen ttl, ARGV[3]
// quota field, ARGV[4] quota limit, ARGV[5] batch ttl, ARGV[6] duplicates within the request,
// ARGV[7] created_at, ARGV[8] the seen keys' common start (a listing id is its seen key without
// it), ARGV[9] the claims keys' common start, ARGV[10] claims ttl, ARGV[11..] the batch header's
// field/value pairs. The ids are not sent again: the arguments are most of what the client writes.
// Returns {'in_flight', {positions}}, {'quota', used, requested} or {'ok', holder or false, ...}.
const admitScript = redisScript(`${reserveQuotaLua}${claimSeenLua}${startClaimsLua}
local n = #KEYS - ${FIXED_KEYS}
local holders, claimed, busy = {}, {}, {}
-- One claim per id: takes it when free (or its holder died), else says who holds it.
for i = 1, n do
  local v = claim_seen(KEYS[${FIXED_KEYS} + i], ARGV[1], ARGV[2], ARGV[9])
  holders[i] = v
  if not v then claimed[#claimed + 1] = i
  elseif string.sub(v, 1, ${PENDING_PREFIX.length}) == '${PENDING_PREFIX}' then busy[#busy + 1] = i end
end
local function unclaim()
  for _, i in ipairs(claimed) do redis.call('DEL', KEYS[${FIXED_KEYS} + i]) end
end
if #busy > 0 then unclaim() return {'in_flight', busy} end
if #claimed > 0 then
  local quota = reserve_quota(KEYS[1], ARGV[3], #claimed, tonumber(ARGV[4]))
  if quota[1] == 0 then unclaim() return {'quota', quota[2], #claimed} end
  start_claims(KEYS[5], ARGV[10])
end
local fields = {}
for i = 11, #ARGV do fields[#fields + 1] = ARGV[i] end
local at = ARGV[7]
local status = 'processing'
if #claimed == 0 then status = 'completed' end
redis.call('HSET', KEYS[2], 'status', status, 'created', #claimed,
  'duplicates', tonumber(ARGV[6]) + n - #claimed, unpack(fields))
redis.call('EXPIRE', KEYS[2], ARGV[5])
if #claimed == 0 then
  redis.call('HSET', KEYS[2], 'completed_at', at)
  redis.call('XADD', KEYS[4], '*', 'type', 'listings.batch.completed', 'batch_id', redis.call('HGET', KEYS[2], 'batch_id'),
    'account_id', redis.call('HGET', KEYS[2], 'account_id'), 'at', at)
else
  local ids = {}
  local start = #ARGV[8] + 1
  for j, i in ipairs(claimed) do ids[j] = string.sub(KEYS[${FIXED_KEYS} + i], start) end
  redis.call('SADD', KEYS[3], unpack(ids))
  redis.call('EXPIRE', KEYS[3], ARGV[5])
end
local out = {'ok'}
for i = 1, n do out[i + 1] = holders[i] end
return out
`);

// KEYS[1] quota hash, KEYS[2] batch record, KEYS[3] its pending set, KEYS[4] its claims key,
// KEYS[5..] claimed seen keys. ARGV[1] quota field, ARGV[2] amount reserved. Only gives back, so it
// runs at the memory ceiling too.
const abandonScript = redisScript(
  `
for i = 4, #KEYS do redis.call('DEL', KEYS[i]) end
if tonumber(ARGV[2]) > 0 then redis.call('HINCRBY', KEYS[1], ARGV[1], -tonumber(ARGV[2])) end
redis.call('DEL', KEYS[2], KEYS[3])
return 1
`,
  { freesMemory: true },
);

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

export function admissionStore(redis: Redis, prefix: string) {
  const seen = seenStore(redis, prefix);
  const keysOf = (request: { batch: { batch_id: string }; owner: AdmissionRequest['owner']; at: Date }) => {
    const batch = batchKeys(prefix, request.batch.batch_id);
    return {
      quota: quotaKey(prefix, request.owner.accountId, request.owner.mode, utcDay(request.at)),
      ...batch,
      claims: claimsKey(prefix, request.batch.batch_id),
    };
  };
  return {
    /**
     * For each candidate: null when this request claimed it (it is new), else who holds it; the
     * quota of the new ones is reserved and the batch recorded. Nothing is written when a candidate
     * is in flight elsewhere (its positions in `candidates` are returned) or on quota_exceeded (thrown).
     */
    async admit(request: AdmissionRequest): Promise<Admission> {
      const keys = keysOf(request);
      const header = Object.entries(batchHeaderFields(request.batch, request.at.toISOString())).flat();
      const reply = (await admitScript.run(
        redis,
        FIXED_KEYS + request.candidates.length,
        keys.quota,
        keys.record,
        keys.pending,
        keys.outbox,
        keys.claims,
        ...request.candidates.map((id) => seenKey(prefix, id)),
        pendingClaim(request.batch.batch_id),
        SEEN_TTL_SECONDS,
        'listings',
        request.limit,
        BATCH_TTL_SECONDS,
        request.batch.duplicates,
        request.at.toISOString(),
        seenKey(prefix, ''),
        claimsKey(prefix, ''),
        CLAIM_TTL_SECONDS,
        ...header,
      )) as [string, ...unknown[]];
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
      return { kind: 'admitted', holders, created: request.candidates.filter((_, i) => !holders[i]) };
    },

    /** The publish succeeded: the batch's claims count for the duplicate window. */
    confirm: (created: string[], batchId: string) => seen.confirm(created, batchId),

    /** The publish failed: gives back what admit took (claims, quota, the batch record). */
    async abandon(
      request: { batch: { batch_id: string }; owner: AdmissionRequest['owner']; at: Date },
      created: string[],
    ) {
      const keys = keysOf(request);
      await abandonScript.run(
        redis,
        4 + created.length,
        keys.quota,
        keys.record,
        keys.pending,
        keys.claims,
        ...created.map((id) => seenKey(prefix, id)),
        'listings',
        created.length,
      );
    },
  };
}

export type AdmissionStore = ReturnType<typeof admissionStore>;
