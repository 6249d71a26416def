// The steps of revoking and rolling a key that must check state and change it at once (key-changes.ts).
// Each touches the keys of one slot only, all passed as KEYS (no key name is built in Lua): the
// key's record (its API key's tag), or the account's admin set (the account's tag). What a step
// relies on that lives elsewhere is read by the client first and re-checked here.
import { redisScript } from '../clients/redis-script.ts';

/** Replies of the record scripts. */
export const scriptOutcome = { unknown: 0, changed: 1, unchanged: 2 } as const;

// An ISO time stamp in `expires_at` that is <= now means expired: every time is written by
// Date.toISOString(), whose fixed format orders as text the way the instants order.

// KEYS[1] the key's record. ARGV[1] now ISO.
// Revokes an active key that has not expired (1); a revoked or expired key is left as it is (2):
// revoking is idempotent, and its first revoked_at stays. 0: no such record.
export const revokeScript = redisScript(
  `
local t = redis.call('HMGET', KEYS[1], 'id', 'status', 'expires_at')
if not t[1] then return 0 end
if t[2] ~= 'active' or (t[3] and t[3] ~= '' and t[3] <= ARGV[1]) then return 2 end
redis.call('HSET', KEYS[1], 'status', 'revoked')
redis.call('HSETNX', KEYS[1], 'revoked_at', ARGV[1])
return 1
`,
  { freesMemory: true },
);

// KEYS[1] the old key's record. ARGV[1] its expires_at ISO, ARGV[2] the replacement's id.
// Only an active key that is not already rolled can be rolled (2 otherwise): rolling twice would
// leave two replacements of one key. 0: no such record.
export const rollScript = redisScript(`
local o = redis.call('HMGET', KEYS[1], 'id', 'status', 'expires_at')
if not o[1] then return 0 end
if o[2] ~= 'active' or (o[3] and o[3] ~= '') then return 2 end
redis.call('HSET', KEYS[1], 'expires_at', ARGV[1], 'replaced_by', ARGV[2])
return 1
`);

// KEYS[1] the account's admin set. ARGV[1] the key leaving it, ARGV[2..] the set's members as the
// client read them (and judged: another admin key that may manage the account's keys remains).
// Takes the key out (1) only if the set still holds exactly those members; else 0: the client
// reads again. Every change of an admin key's standing (create, roll, revoke) changes this set
// first, so an unchanged set means the client's judgement still holds.
export const leaveAdminsScript = redisScript(
  `
if redis.call('SCARD', KEYS[1]) ~= #ARGV - 1 then return 0 end
for i = 2, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 0 then return 0 end
end
redis.call('SREM', KEYS[1], ARGV[1])
return 1
`,
  { freesMemory: true },
);

// KEYS[1] the account hash, KEYS[2] its admin set. ARGV: the ids of its active admin keys that are
// not rolled, as the client read them from its key set.
// Accounts whose admin keys predate the admin set have it incomplete: the first guarded revoke
// fills it, once (the account hash then carries `admins_indexed`; accounts created with the set
// have it from the start), so the guard never reads a partial set. 0: already indexed.
export const indexAdminsScript = redisScript(
  `
if redis.call('HEXISTS', KEYS[1], 'admins_indexed') == 1 then return 0 end
if #ARGV > 0 then redis.call('SADD', KEYS[2], unpack(ARGV)) end
redis.call('HSET', KEYS[1], 'admins_indexed', '1')
return 1
`,
  { freesMemory: true },
);

// KEYS[1] the account hash, KEYS[2] its key set, KEYS[3] its admin set. ARGV[1] the pruning's next
// SSCAN cursor, ARGV[2] n, ARGV[3 .. n+2] ids of ended keys (they leave the admin set), the rest
// ids ended before the cutoff (they leave the key set). A script, not a MULTI, so that it runs at
// Redis' maxmemory ceiling too, as part of a revocation.
export const pruneScript = redisScript(
  `
redis.call('HSET', KEYS[1], 'prune_cursor', ARGV[1])
local ended = tonumber(ARGV[2])
for i = 3, ended + 2 do redis.call('SREM', KEYS[3], ARGV[i]) end
for i = ended + 3, #ARGV do redis.call('SREM', KEYS[2], ARGV[i]) end
return 1
`,
  { freesMemory: true },
);
