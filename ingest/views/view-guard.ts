// Which view events of a request count (docs/ingest.md, "View events"), decided in one Redis
// script per request, atomically across processes:
//   - duplicate: a client `event_id` already accepted for the same listing and viewer, by this
//     account in this mode, today or yesterday (UTC, by receive time: a 24–48 h window);
//   - capped: the viewer already has VIEWS_PER_VIEWER_DAY views of the listing counted on the
//     view's UTC day (as far as this account reported them today or yesterday);
//   - accepted: everything else, as long as the account's daily view quota (tiers.ts) has room for
//     all of them — otherwise the request is refused whole with 429 quota_exceeded and nothing is
//     recorded.
//
// No Redis key per event. Each account, mode and day has a fixed set of small hashes ("buckets",
// `<prefix>vg:<account>:<mode>:<day>:<n>`), picked by (listing, viewer) — so a retried event, with
// its listing and viewer, always meets its first copy. An accepted event adds at most two 9-byte
// fields: its event id's fingerprint (only when the client gave one: generated ids never repeat)
// and a counter per (listing, viewer, viewed day). The day's bucket count is fixed at its first
// accepted event — one per 128 events the account had the day before (at least 16, at most the
// quota's worth) — and recorded in the day's quota hash, so every request of the day, whatever its
// key's tier, uses the same buckets. A day like the one before keeps ≤ ~256 fields per bucket, in
// Redis' compact listpack encoding (≈ 26 bytes per accepted event); a day far busier than the one
// before overfills its buckets, which Redis turns into regular hashes (≈ 100 bytes per event, that
// day only). Either way: kept 49 h, never more than the daily quota per account. The script reads
// each bucket it needs once (HMGET) and writes it once (HSET).
//
// Exactness: fingerprints are 8 bytes of SHA-256, so two different ids (or counters) of one
// bucket collide with probability ~2⁻⁶⁴ per pair; a repeat inside the window is never missed. Past
// the window an id is forgotten (the Idempotency-Key covers whole retried requests for 24 h too).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { KeyMode } from '../../common/auth/api-key-format.ts';
import { redisScript } from '../../common/clients/redis-script.ts';
import { QUOTA_TTL_SECONDS, quotaExceeded, quotaKey, utcDay } from '../quota.ts';

/** Views of one listing by one viewer that count per UTC day; later ones are rejected. */
export const VIEWS_PER_VIEWER_DAY = 3;
/**
 * One bucket per this many events (of the day before): ≤ ~256 fields per bucket, within the listpack
 * limit the local stack and docs/scaling.md set (`hash-max-listpack-entries 512`). Larger buckets mean
 * fewer commands per request but longer (linear) listpack scans.
 */
const EVENTS_PER_BUCKET = 128;
const MIN_BUCKETS = 16;
/** Bytes per event in the script's one binary argument (eventBlob). */
const EVENT_BYTES = 21;

// Shared Lua: the events of ARGV[7] (eventBlob) as {client?, bucket hash, event field, counter
// field}, and HMGET of every needed field of one bucket at once. Each bucket holds a field `_`
// from its first write on: a bucket read without it is new and gets its TTL when written.
const common = `
local function events(blob)
  local out = {}
  for i = 1, #blob / ${EVENT_BYTES} do
    local b = (i - 1) * ${EVENT_BYTES} + 1
    out[i] = { client = string.byte(blob, b) == 49, hash = struct.unpack('>I4', blob, b + 1),
      ef = 'e' .. string.sub(blob, b + 5, b + 12), cf = 'c' .. string.sub(blob, b + 13, b + 20) }
  end
  return out
end
local function readAll(want)
  local values = {}
  for key, set in pairs(want) do
    local fields = { '_' }
    for field in pairs(set) do fields[#fields + 1] = field end
    local got = redis.call('HMGET', key, unpack(fields))
    local map = {}
    for i, field in ipairs(fields) do map[field] = got[i] end
    values[key] = map
  end
  return values
end
local function need(want, key, field)
  if not want[key] then want[key] = {} end
  want[key][field] = true
end
`;

// KEYS[1] today's quota hash, KEYS[2] yesterday's. ARGV: 1 today's bucket prefix, 2 yesterday's,
// 3 most buckets (the quota's), 4 cap, 5 quota limit, 6 ttl, 7 the events (one binary argument, so
// Redis does not parse thousands of arguments).
// Returns {accepted or -1 when over quota, views used, status per event (0 ok, 1 dup, 2 capped)}.
const admitScript = redisScript(`${common}
local qT, qY = KEYS[1], KEYS[2]
local cap, limit, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local nbT = tonumber(redis.call('HGET', qT, 'view_buckets') or '0')
local newNb = nbT == 0
if newNb then
  local before = tonumber(redis.call('HGET', qY, 'views') or '0')
  nbT = math.min(tonumber(ARGV[3]), math.max(${MIN_BUCKETS}, math.ceil(before / ${EVENTS_PER_BUCKET})))
end
local nbY = tonumber(redis.call('HGET', qY, 'view_buckets') or '0')
local ev, want = events(ARGV[7]), {}
for _, e in ipairs(ev) do
  e.kT = ARGV[1] .. (e.hash % nbT)
  if nbY > 0 then e.kY = ARGV[2] .. (e.hash % nbY) end
  for _, key in ipairs({ e.kT, e.kY }) do
    if e.client then need(want, key, e.ef) end
    need(want, key, e.cf)
  end
end
local got = readAll(want)
local status, counts, seen = {}, {}, {}
local accepted = 0
for i, e in ipairs(ev) do
  local st = 0
  if e.client and (seen[e.kT .. e.ef] or got[e.kT][e.ef] or (e.kY and got[e.kY][e.ef])) then st = 1 end
  if st == 0 then
    local ck = e.kT .. e.cf
    local c = counts[ck]
    if not c then
      c = { key = e.kT, field = e.cf, today = tonumber(got[e.kT][e.cf] or '0'), added = 0,
        before = e.kY and tonumber(got[e.kY][e.cf] or '0') or 0 }
      counts[ck] = c
    end
    if c.today + c.before + c.added >= cap then
      st = 2
    else
      c.added = c.added + 1
      if e.client then seen[e.kT .. e.ef] = e end
      accepted = accepted + 1
    end
  end
  status[i] = st
end
local used = tonumber(redis.call('HGET', qT, 'views') or '0')
if accepted > 0 and used + accepted > limit then return {-1, used, status} end
if accepted > 0 then
  if newNb then redis.call('HSET', qT, 'view_buckets', nbT) end
  used = redis.call('HINCRBY', qT, 'views', accepted)
  if redis.call('TTL', qT) < 0 then redis.call('EXPIRE', qT, ttl) end
  local writes = {}
  local function put(key, field, value)
    if not writes[key] then writes[key] = { '_', '1' } end
    local w = writes[key]
    w[#w + 1] = field
    w[#w + 1] = value
  end
  for _, e in pairs(seen) do put(e.kT, e.ef, '') end
  for _, c in pairs(counts) do
    if c.added > 0 then put(c.key, c.field, c.today + c.added) end
  end
  for key, args in pairs(writes) do
    redis.call('HSET', key, unpack(args))
    if not got[key]['_'] then redis.call('EXPIRE', key, ttl) end
  end
end
return {accepted, used, status}
`);

// Undoes an admit whose events were not published (same KEYS[1] and ARGV layout; today only).
const releaseScript = redisScript(
  `${common}
local nb = tonumber(redis.call('HGET', KEYS[1], 'view_buckets') or '0')
if nb == 0 then return 0 end
local ev = events(ARGV[7])
local counts = {}
for _, e in ipairs(ev) do
  local key = ARGV[1] .. (e.hash % nb)
  if e.client then redis.call('HDEL', key, e.ef) end
  local ck = key .. e.cf
  if not counts[ck] then counts[ck] = { key = key, field = e.cf, n = 0 } end
  counts[ck].n = counts[ck].n + 1
end
for _, c in pairs(counts) do redis.call('HINCRBY', c.key, c.field, -c.n) end
redis.call('HINCRBY', KEYS[1], 'views', -#ev)
return #ev
`,
  { freesMemory: true },
);

export interface GuardedEvent {
  /** The client's event id; undefined when the service generated one (never a duplicate). */
  clientEventId?: string;
  listingId: string;
  /** Who viewed: the client's viewer_id, else the API key (see viewerOf). */
  viewer: string;
  /** UTC day of viewed_at. */
  viewedDay: string;
}

export type GuardStatus = 'accepted' | 'duplicate' | 'capped';
const statuses: GuardStatus[] = ['accepted', 'duplicate', 'capped'];

export interface GuardOwner {
  accountId: string;
  mode: KeyMode;
}

/** The viewer of an event: the client's `viewer_id` (a session or user), else the key itself. */
export function viewerOf(viewerId: string | undefined, keyId: string): string {
  return viewerId === undefined ? `key:${keyId}` : `id:${viewerId}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Per event: '1'/'0' (client id?), bucket hash of (listing, viewer), event and counter fingerprints. */
function eventBlob(events: GuardedEvent[]): Buffer {
  const blob = Buffer.alloc(events.length * EVENT_BYTES);
  events.forEach((e, i) => {
    const at = i * EVENT_BYTES;
    const pair = sha256(`viewer|${e.listingId}|${e.viewer}`);
    blob.write(e.clientEventId === undefined ? '0' : '1', at, 'latin1');
    pair.copy(blob, at + 1, 0, 4);
    sha256(`event|${e.clientEventId ?? ''}`).copy(blob, at + 5, 0, 8);
    sha256(`viewer|${e.listingId}|${e.viewer}|${e.viewedDay}`).copy(blob, at + 13, 0, 8);
  });
  return blob;
}

/** The name of an account's view-guard buckets of a day without the bucket number (the script appends it). */
export const viewGuardBucketPrefix = (prefix: string, owner: GuardOwner, day: string) =>
  `${prefix}vg:${owner.accountId}:${owner.mode}:${day}:`;

export function viewGuard(redis: Redis, prefix: string) {
  const bucketPrefix = (owner: GuardOwner, day: string) => viewGuardBucketPrefix(prefix, owner, day);
  const head = (owner: GuardOwner, at: Date, limit: number) => {
    const [today, yesterday] = [utcDay(at), utcDay(new Date(at.getTime() - 86_400_000))];
    return {
      keys: [
        quotaKey(prefix, owner.accountId, owner.mode, today),
        quotaKey(prefix, owner.accountId, owner.mode, yesterday),
      ],
      args: [
        bucketPrefix(owner, today),
        bucketPrefix(owner, yesterday),
        Math.max(MIN_BUCKETS, Math.ceil(limit / EVENTS_PER_BUCKET)),
        VIEWS_PER_VIEWER_DAY,
        limit,
        QUOTA_TTL_SECONDS,
      ],
    };
  };

  return {
    /**
     * The status of each event; accepted ones are recorded (and counted against `limit`). Throws
     * 429 quota_exceeded, recording nothing, when the accepted ones do not fit into today's quota.
     */
    async admit(
      owner: GuardOwner,
      events: GuardedEvent[],
      limit: number,
      at = new Date(),
    ): Promise<GuardStatus[]> {
      if (!events.length) return [];
      const { keys, args } = head(owner, at, limit);
      const [accepted, used, codes] = (await admitScript.run(
        redis,
        2,
        ...keys,
        ...args,
        eventBlob(events),
      )) as [number, number, number[]];
      if (accepted < 0) {
        const requested = codes.filter((c) => c === 0).length;
        throw quotaExceeded('views', { limit, used, requested, at });
      }
      return codes.map((code) => statuses[code] ?? 'accepted');
    },

    /** Forgets accepted events that could not be published, so a retry is not a duplicate. */
    async release(owner: GuardOwner, events: GuardedEvent[], limit: number, at: Date): Promise<void> {
      if (!events.length) return;
      const { keys, args } = head(owner, at, limit);
      await releaseScript.run(redis, 1, keys[0]!, ...args, eventBlob(events));
    },
  };
}

export type ViewGuard = ReturnType<typeof viewGuard>;
