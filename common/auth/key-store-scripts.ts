// The two key changes that must check state and change it in one step (key-store.ts): revoking
// (with the no-lock-out guard of the API) and rolling. Each is one Lua script, so two concurrent
// requests cannot both pass a check that only one of them may pass (two admin keys revoking each
// other; one key rolled twice), and the audit event is appended in the same step as the change.
// The scripts build key names from ids they read (with the name beginnings that key-store.ts
// passes, so names are spelled there only), which needs every key of the prefix in one slot: a
// single Redis node, or a Redis Cluster with the prefix as hash tag (clients/redis.ts).
import { redisScript } from '../clients/redis-script.ts';

/** Replies of the scripts. */
export const scriptOutcome = { unknown: 0, changed: 1, unchanged: 2, lastAdmin: 3 } as const;

// An ISO time stamp in `expires_at` that is <= now means expired: every time is written by
// Date.toISOString(), whose fixed format orders as text the way the instants order.

// Bounded pruning, run by every revoke and roll: looks at about `count` ids of the account's key
// set (SSCAN from the cursor kept in the account hash, so successive calls walk the whole set);
// an id whose key is revoked or expired leaves the admin set, and leaves the key set too when that
// happened before `cutoff`. Each roll adds one id and looks at about `count`, so the set cannot
// outgrow the pruning, and no call does more than a fixed amount of work.
const pruneLua = `
local function prune(keySet, adminSet, account, idKey, recordKey, now, cutoff, count)
  local scan = redis.call('SSCAN', keySet, redis.call('HGET', account, 'prune_cursor') or '0', 'COUNT', count)
  for _, id in ipairs(scan[2]) do
    local hash = redis.call('GET', idKey .. id)
    if hash then
      local r = redis.call('HMGET', recordKey .. hash, 'status', 'revoked_at', 'expires_at')
      local expires = r[3] or ''
      if r[1] ~= 'active' or (expires ~= '' and expires <= now) then
        redis.call('SREM', adminSet, id)
        local ended = r[2] or ''
        if ended == '' then ended = expires end
        if ended < cutoff then redis.call('SREM', keySet, id) end
      end
    end
  end
  redis.call('HSET', account, 'prune_cursor', scan[1])
end
`;

// Accounts whose admin keys predate the admin set have it incomplete: the first revoke fills it
// from the account's key set, once (the account hash then carries `admins_indexed`; accounts
// created with the set have it from the start), so the guard never reads a partial set.
const indexAdminsLua = `
local function indexAdmins(keySet, adminSet, account, idKey, recordKey)
  if redis.call('HEXISTS', account, 'admins_indexed') == 1 then return end
  for _, id in ipairs(redis.call('SMEMBERS', keySet)) do
    local hash = redis.call('GET', idKey .. id)
    if hash then
      local r = redis.call('HMGET', recordKey .. hash, 'role', 'status')
      if r[1] == 'admin' and r[2] == 'active' then redis.call('SADD', adminSet, id) end
    end
  end
  redis.call('HSET', account, 'admins_indexed', '1')
end
`;

// KEYS[1] target record, KEYS[2] audit outbox, KEYS[3] the account's key id set, KEYS[4] the
// account's admin key id set, KEYS[5] the account hash.
// ARGV: 1 audit event JSON ('' = none), 2 guard modes ('' = no guard, else comma-separated modes
// an admin key must have to count), 3 target id, 4 now ISO, 5 prune cutoff ISO, 6 prune count,
// 7 name of an id → hash key without the id, 8 name of a record without the hash.
// Guard: refuse (3) unless another active, non-expiring admin key of one of the modes remains. It
// reads the admin set only (an account's admin keys, not its every key: the scan must not grow with
// revoked keys). The target leaves the admin set. A revoked or expired target is left as it is (2):
// revoking is idempotent. Both answers prune.
export const revokeScript = redisScript(
  `${pruneLua}${indexAdminsLua}
local t = redis.call('HMGET', KEYS[1], 'id', 'status', 'expires_at')
if not t[1] then return 0 end
indexAdmins(KEYS[3], KEYS[4], KEYS[5], ARGV[7], ARGV[8])
local outcome = 1
if t[2] ~= 'active' or (t[3] and t[3] ~= '' and t[3] <= ARGV[4]) then outcome = 2 end
if outcome == 1 and ARGV[2] ~= '' then
  local modes = ',' .. ARGV[2] .. ','
  local found = false
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[4])) do
    if id ~= ARGV[3] then
      local hash = redis.call('GET', ARGV[7] .. id)
      if hash then
        local o = redis.call('HMGET', ARGV[8] .. hash, 'role', 'status', 'expires_at', 'mode')
        if o[1] == 'admin' and o[2] == 'active' and (not o[3] or o[3] == '')
          and o[4] and string.find(modes, ',' .. o[4] .. ',', 1, true) then
          found = true
          break
        end
      end
    end
  end
  if not found then return 3 end
end
if outcome == 1 then
  redis.call('HSET', KEYS[1], 'status', 'revoked')
  redis.call('HSETNX', KEYS[1], 'revoked_at', ARGV[4])
  redis.call('SREM', KEYS[4], ARGV[3])
  if ARGV[1] ~= '' then redis.call('XADD', KEYS[2], '*', 'event', ARGV[1]) end
end
prune(KEYS[3], KEYS[4], KEYS[5], ARGV[7], ARGV[8], ARGV[4], ARGV[5], ARGV[6])
return outcome
`,
  { freesMemory: true },
);

// KEYS[1] old record, KEYS[2] new record, KEYS[3] new id → hash, KEYS[4] account key id set,
// KEYS[5] all key ids (zset), KEYS[6] audit outbox, KEYS[7] account admin key id set, KEYS[8] the
// account hash.
// ARGV: 1 expires_at ISO of the old key, 2 new id, 3 new hash, 4 creation score (ms),
// 5 audit event JSON ('' = none), 6 '1' when the key is an admin key, 7 now ISO, 8 prune cutoff
// ISO, 9 prune count, 10 name of an id → hash key without the id, 11 name of a record without the
// hash, 12.. the new record's field/value pairs.
// Only an active key that is not already rolled can be rolled (2 otherwise): rolling twice would
// leave two replacements of one key.
export const rollScript = redisScript(`${pruneLua}
local o = redis.call('HMGET', KEYS[1], 'id', 'status', 'expires_at')
if not o[1] then return 0 end
if o[2] ~= 'active' or (o[3] and o[3] ~= '') then return 2 end
redis.call('HSET', KEYS[1], 'expires_at', ARGV[1], 'replaced_by', ARGV[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 12))
redis.call('SET', KEYS[3], ARGV[3])
redis.call('SADD', KEYS[4], ARGV[2])
if ARGV[6] == '1' then redis.call('SADD', KEYS[7], ARGV[2]) end
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[2])
if ARGV[5] ~= '' then redis.call('XADD', KEYS[6], '*', 'event', ARGV[5]) end
prune(KEYS[4], KEYS[7], KEYS[8], ARGV[10], ARGV[11], ARGV[7], ARGV[8], ARGV[9])
return 1
`);
