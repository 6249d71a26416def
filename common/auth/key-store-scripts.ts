// The two key changes that must check state and change it in one step (key-store.ts): revoking
// (with the no-lock-out guard of the API) and rolling. Each is one Lua script, so two concurrent
// requests cannot both pass a check that only one of them may pass (two admin keys revoking each
// other; one key rolled twice), and the audit event is appended in the same step as the change.
// The scripts build key names from ids they read, which needs every key of the prefix in one slot:
// a single Redis node, or a Redis Cluster with the prefix as hash tag (clients/redis.ts).
import { redisScript } from '../clients/redis-script.ts';

/** Replies of the scripts. */
export const scriptOutcome = { unknown: 0, changed: 1, unchanged: 2, lastAdmin: 3 } as const;

// An ISO time stamp in `expires_at` that is <= now means expired: every time is written by
// Date.toISOString(), whose fixed format orders as text the way the instants order.
//
// KEYS[1] target record, KEYS[2] audit outbox, KEYS[3] the account's key id set, KEYS[4] the
// account's admin key id set.
// ARGV: 1 prefix, 2 now ISO, 3 audit event JSON ('' = none), 4 guard modes ('' = no guard, else
// comma-separated modes an admin key must have to count), 5 target id.
// Guard: refuse (3) unless another active, non-expiring admin key of one of the modes remains. It
// reads the admin set only (an account's admin keys, not its every key: the scan must not grow with
// revoked keys); an account whose keys predate the admin set is scanned whole. The target leaves the
// admin set. A revoked or expired target is left as it is (2): revoking is idempotent.
export const revokeScript = redisScript(
  `
local t = redis.call('HMGET', KEYS[1], 'id', 'status', 'expires_at')
if not t[1] then return 0 end
if t[2] ~= 'active' or (t[3] and t[3] ~= '' and t[3] <= ARGV[2]) then return 2 end
if ARGV[4] ~= '' then
  local modes = ',' .. ARGV[4] .. ','
  local found = false
  local candidates = redis.call('SMEMBERS', KEYS[4])
  if #candidates == 0 then candidates = redis.call('SMEMBERS', KEYS[3]) end
  for _, id in ipairs(candidates) do
    if id ~= ARGV[5] then
      local hash = redis.call('GET', ARGV[1] .. 'key:id:' .. id)
      if hash then
        local o = redis.call('HMGET', ARGV[1] .. 'key:h:' .. hash, 'role', 'status', 'expires_at', 'mode')
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
redis.call('HSET', KEYS[1], 'status', 'revoked')
redis.call('HSETNX', KEYS[1], 'revoked_at', ARGV[2])
redis.call('SREM', KEYS[4], ARGV[5])
if ARGV[3] ~= '' then redis.call('XADD', KEYS[2], '*', 'event', ARGV[3]) end
return 1
`,
  { freesMemory: true },
);

// KEYS[1] old record, KEYS[2] new record, KEYS[3] new id → hash, KEYS[4] account key id set,
// KEYS[5] all key ids (zset), KEYS[6] audit outbox, KEYS[7] account admin key id set.
// ARGV: 1 expires_at ISO of the old key, 2 new id, 3 new hash, 4 creation score (ms),
// 5 audit event JSON ('' = none), 6 '1' when the key is an admin key, 7.. the new record's
// field/value pairs.
// Only an active key that is not already rolled can be rolled (2 otherwise): rolling twice would
// leave two replacements of one key.
export const rollScript = redisScript(`
local o = redis.call('HMGET', KEYS[1], 'id', 'status', 'expires_at')
if not o[1] then return 0 end
if o[2] ~= 'active' or (o[3] and o[3] ~= '') then return 2 end
redis.call('HSET', KEYS[1], 'expires_at', ARGV[1], 'replaced_by', ARGV[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 7))
redis.call('SET', KEYS[3], ARGV[3])
redis.call('SADD', KEYS[4], ARGV[2])
if ARGV[6] == '1' then redis.call('SADD', KEYS[7], ARGV[2]) end
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[2])
if ARGV[5] ~= '' then redis.call('XADD', KEYS[6], '*', 'event', ARGV[5]) end
return 1
`);
