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
// `<prefix>{a:<account>}:vg:<account>:<mode>:<day>:<n>`, under the account's hash tag like its quota
// hash), picked by (listing, viewer) — so a retried event, with
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
// The script is given every bucket it touches (KEYS): the client picks them from the days' bucket
// counts, which it reads first (and remembers once fixed: a day's count never changes), and the
// script checks the counts it was given against the quota hashes, answering "retry" (nothing
// written) when one changed in between — only when two requests start an account's day together.
//
// Exactness: fingerprints are 8 bytes of SHA-256, so two different ids (or counters) of one
// bucket collide with probability ~2⁻⁶⁴ per pair; a repeat inside the window is never missed. Past
// the window an id is forgotten (the Idempotency-Key covers whole retried requests for 24 h too).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { KeyMode } from '../../common/auth/api-key-format.ts';
import { redisScript } from '../../common/clients/redis-script.ts';
import { accountSpace } from '../../common/redis-keys/tags.ts';
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
// field}, the bucket keys given in KEYS (from KEYS[first], one per bucket number of the list
// `numbers`, comma-separated) by bucket number, and HMGET of every needed field of one bucket at
// once. Each bucket holds a field `_` from its first write on: a bucket read without it is new and
// gets its TTL when written.
const common = `
local function bucketKeys(first, numbers)
  local keys, i = {}, first
  for n in string.gmatch(numbers, '%d+') do
    keys[tonumber(n)] = KEYS[i]
    i = i + 1
  end
  return keys, i
end
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

// KEYS[1] today's quota hash, KEYS[2] yesterday's, then today's buckets the events need, then
// yesterday's. ARGV: 1 today's bucket count as the client read it (0: not fixed yet), 2 yesterday's,
// 3 today's count to fix when it is not (from yesterday's views, as the client read them), 4 cap,
// 5 quota limit, 6 ttl, 7 the events (one binary argument, so Redis does not parse thousands of
// arguments), 8 today's bucket numbers (in KEYS order, comma-separated), 9 yesterday's.
// Returns {accepted or -1 when over quota, views used, status per event (0 ok, 1 dup, 2 capped)},
// or {-2} when a day's bucket count is not the client's (nothing written: read again and retry).
const admitScript = redisScript(`${common}
local qT, qY = KEYS[1], KEYS[2]
local cap, limit, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local nbT = tonumber(redis.call('HGET', qT, 'view_buckets') or '0')
local nbY = tonumber(redis.call('HGET', qY, 'view_buckets') or '0')
if nbT ~= tonumber(ARGV[1]) or nbY ~= tonumber(ARGV[2]) then return {-2} end
local newNb = nbT == 0
if newNb then nbT = tonumber(ARGV[3]) end
local todayKeys, next = bucketKeys(3, ARGV[8])
local yesterdayKeys = bucketKeys(next, ARGV[9])
local ev, want = events(ARGV[7]), {}
for _, e in ipairs(ev) do
  e.kT = todayKeys[e.hash % nbT]
  if nbY > 0 then e.kY = yesterdayKeys[e.hash % nbY] end
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

// Undoes an admit whose events were not published (same KEYS and ARGV layout; today's buckets only).
// Returns the events given back, or -2 when today's bucket count is not the client's.
const releaseScript = redisScript(
  `${common}
local nb = tonumber(redis.call('HGET', KEYS[1], 'view_buckets') or '0')
if nb == 0 then return 0 end
if nb ~= tonumber(ARGV[1]) then return -2 end
local todayKeys = bucketKeys(3, ARGV[8])
local ev = events(ARGV[7])
local counts = {}
for _, e in ipairs(ev) do
  local key = todayKeys[e.hash % nb]
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
function eventBlob(events: GuardedEvent[]): { blob: Buffer; hashes: number[] } {
  const blob = Buffer.alloc(events.length * EVENT_BYTES);
  const hashes = events.map((e, i) => {
    const at = i * EVENT_BYTES;
    const pair = sha256(`viewer|${e.listingId}|${e.viewer}`);
    blob.write(e.clientEventId === undefined ? '0' : '1', at, 'latin1');
    pair.copy(blob, at + 1, 0, 4);
    sha256(`event|${e.clientEventId ?? ''}`).copy(blob, at + 5, 0, 8);
    sha256(`viewer|${e.listingId}|${e.viewer}|${e.viewedDay}`).copy(blob, at + 13, 0, 8);
    return pair.readUInt32BE(0); // what the script reads as the bucket hash
  });
  return { blob, hashes };
}

/** One of an account's view-guard buckets of a day (bucket number `bucket`). */
export const viewGuardBucketKey = (prefix: string, owner: GuardOwner, day: string, bucket: number) =>
  `${accountSpace(prefix, owner.accountId)}vg:${owner.accountId}:${owner.mode}:${day}:${bucket}`;

/** Tries of a request whose days' bucket counts changed while it was sent (each try reads them again). */
const TRIES = 5;
/** Days whose bucket count is remembered (fixed for the day once set): bounds the process' memory. */
const REMEMBERED_DAYS = 10_000;

/** What a guard keeps between requests. */
interface GuardContext {
  redis: Redis;
  prefix: string;
  /**
   * Quota hash → its day's bucket count, once fixed (it never changes afterwards; yesterday's 0 is
   * kept too, as the day is over). A wrong one costs a retry only: the script checks it.
   */
  fixed: Map<string, number>;
}

export function viewGuard(redis: Redis, prefix: string) {
  const context: GuardContext = { redis, prefix, fixed: new Map() };
  return {
    admit: (owner: GuardOwner, events: GuardedEvent[], limit: number, at?: Date) =>
      admit(context, owner, events, limit, at),
    release: (owner: GuardOwner, events: GuardedEvent[], limit: number, at: Date) =>
      release(context, owner, events, limit, at),
  };
}

export type ViewGuard = ReturnType<typeof viewGuard>;

/**
 * The status of each event; accepted ones are recorded (and counted against `limit`). Throws
 * 429 quota_exceeded, recording nothing, when the accepted ones do not fit into today's quota.
 */
async function admit(
  context: GuardContext,
  owner: GuardOwner,
  events: GuardedEvent[],
  limit: number,
  at = new Date(),
): Promise<GuardStatus[]> {
  if (!events.length) return [];
  const [accepted, used, codes] = (await run(context, admitScript, owner, events, limit, at, 2)) as [
    number,
    number,
    number[],
  ];
  if (accepted < 0) {
    const requested = codes.filter((c) => c === 0).length;
    throw quotaExceeded('views', { limit, used, requested, at });
  }
  return codes.map((code) => statuses[code] ?? 'accepted');
}

/** Forgets accepted events that could not be published, so a retry is not a duplicate. */
async function release(
  context: GuardContext,
  owner: GuardOwner,
  events: GuardedEvent[],
  limit: number,
  at: Date,
): Promise<void> {
  if (!events.length) return;
  await run(context, releaseScript, owner, events, limit, at, 1);
}

function remember(fixed: Map<string, number>, quotaHash: string, count: number) {
  if (fixed.size >= REMEMBERED_DAYS) fixed.clear();
  fixed.set(quotaHash, count);
}

/** The bucket counts of today and yesterday, and the count today gets if not fixed yet. */
async function counts({ redis, fixed }: GuardContext, today: string, yesterday: string, limit: number) {
  let [nbT, nbY] = [fixed.get(today) ?? 0, fixed.get(yesterday)];
  let before = 0;
  if (!nbT || nbY === undefined) {
    // Both quota hashes are under the account's tag: one slot, so one pipeline on a cluster too.
    const replies = (await redis
      .pipeline()
      .hget(today, 'view_buckets')
      .hmget(yesterday, 'view_buckets', 'views')
      .exec()) as [Error | null, unknown][] | null;
    const failed = replies?.find(([error]) => error)?.[0];
    if (!replies || failed) throw failed ?? new Error('pipeline discarded');
    const [bucketsT, [bucketsY, viewsY]] = [replies[0]![1], replies[1]![1]] as [
      string | null,
      (string | null)[],
    ];
    [nbT, nbY, before] = [Number(bucketsT ?? 0), Number(bucketsY ?? 0), Number(viewsY ?? 0)];
    if (nbT) remember(fixed, today, nbT);
    remember(fixed, yesterday, nbY);
  }
  const most = Math.max(MIN_BUCKETS, Math.ceil(limit / EVENTS_PER_BUCKET));
  const fresh = Math.min(most, Math.max(MIN_BUCKETS, Math.ceil(before / EVENTS_PER_BUCKET)));
  return { nbT, nbY, fresh };
}

/**
 * Runs `script` with the buckets its events need (of today, and of yesterday when `days` is 2);
 * reads the days' counts again while the script finds them changed.
 */
async function run(
  context: GuardContext,
  script: typeof admitScript,
  owner: GuardOwner,
  events: GuardedEvent[],
  limit: number,
  at: Date,
  days: 1 | 2,
): Promise<unknown> {
  const { redis, prefix, fixed } = context;
  const [today, yesterday] = [utcDay(at), utcDay(new Date(at.getTime() - 86_400_000))];
  const quota = [today, yesterday].map((day) => quotaKey(prefix, owner.accountId, owner.mode, day)) as [
    string,
    string,
  ];
  const { blob, hashes } = eventBlob(events);
  for (let attempt = 1; ; attempt++) {
    const { nbT, nbY, fresh } = await counts(context, quota[0], quota[1], limit);
    const numbers = (count: number) => (count ? [...new Set(hashes.map((h) => h % count))] : []);
    const bucketsT = numbers(nbT || fresh);
    const bucketsY = days === 2 ? numbers(nbY) : [];
    const keys = [
      ...quota,
      ...bucketsT.map((b) => viewGuardBucketKey(prefix, owner, today, b)),
      ...bucketsY.map((b) => viewGuardBucketKey(prefix, owner, yesterday, b)),
    ];
    const reply = await script.run(
      redis,
      keys.length,
      ...keys,
      nbT,
      nbY,
      fresh,
      VIEWS_PER_VIEWER_DAY,
      limit,
      QUOTA_TTL_SECONDS,
      blob,
      bucketsT.join(','),
      bucketsY.join(','),
    );
    const stale = Array.isArray(reply) ? reply[0] === -2 : reply === -2;
    if (!stale) return reply;
    fixed.delete(quota[0]);
    fixed.delete(quota[1]);
    if (attempt >= TRIES) throw new Error('view guard: the bucket counts kept changing');
  }
}
