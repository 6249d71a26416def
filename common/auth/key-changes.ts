// Revoking and rolling keys (key-store.ts), in steps over several Redis Cluster slots: the key's
// record (its API key's tag), its account's sets (the account's tag), the key index and the id
// lookup. Each step is one script or transaction on one slot; the order of the steps is chosen so
// that a process dying between two of them never lets a key work that should not, never locks an
// account out, and leaves nothing a reader trips over.
//
// The no-lock-out guard (never revoke the last admin key that can manage the account's keys) and
// "a key is rolled once" stay race-free: the guard's authority is the account's admin set (active,
// not rolled admin keys), which every revoke and roll changes first, with the change of the admin
// set re-checking the members the client judged (key-store-scripts.ts); a roll is decided by one
// script on the old key's record.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { displayPrefix, generateApiKey, hashApiKey, type KeyMode } from './api-key-format.ts';
import { keyAuditEvent, type KeyActor, type KeyAuditEvent } from './key-audit.ts';
import type { ApiKeyRecord } from './key-record.ts';
import type { KeyStoreKeys } from './key-store.ts';
import {
  indexAdminsScript,
  leaveAdminsScript,
  pruneScript,
  revokeScript,
  rollScript,
  scriptOutcome,
} from './key-store-scripts.ts';

/** How long revoked keys stay in their account's key set (GET /keys) before they are pruned. */
export const REVOKED_KEPT_DAYS = 30;
/**
 * Ids of the account's key set that each revoke and roll looks at for pruning: more than the one id
 * a roll adds, so the pruning keeps up, and few enough that every call stays cheap.
 */
export const PRUNE_BATCH = 100;
/** Reads of the admin set a guarded revoke makes before it gives up (the set kept changing). */
const GUARD_ATTEMPTS = 10;

/** A request the store refuses (bad input); callers show its message. */
export class KeyStoreError extends Error {}
/** Revoking this key would leave the account without an admin key that can manage its keys. */
export class LastAdminKeyError extends KeyStoreError {}
/** Only an active key that was not rolled already can be rolled. */
export class KeyNotRollableError extends KeyStoreError {}

export interface RevokeOptions {
  /** Who revokes (recorded in the audit log); none for fixtures. */
  actor?: KeyActor;
  /**
   * The API's no-lock-out rule: refuse (LastAdminKeyError) unless another active admin key that is
   * not rolled remains in the account, of one of these modes.
   */
  keepAdminOfModes?: readonly KeyMode[];
}

export interface RollOptions {
  /** When the old key stops working. */
  expiresAt: Date;
  actor?: KeyActor;
}

/** What the store lends these changes (key-store.ts). */
export interface KeyChangeDeps {
  redis: Redis;
  keys: KeyStoreKeys;
  lookup(id: string): Promise<{ hash: string; record: ApiKeyRecord } | null>;
  findById(id: string): Promise<ApiKeyRecord | null>;
  recordsOf(ids: string[]): Promise<ApiKeyRecord[]>;
  addPointers(record: ApiKeyRecord, hash: string, account: { replacing?: string }): Promise<void>;
  removePointers(record: ApiKeyRecord): Promise<void>;
  writeRecord(record: ApiKeyRecord, hash: string): Promise<unknown>;
  audit(event: KeyAuditEvent): Promise<void>;
}

/** Revoking and rolling, over what the store lends (key-store.ts). */
export function keyChanges(deps: KeyChangeDeps) {
  return {
    revoke: (id: string, options?: RevokeOptions) => revoke(deps, id, options),
    roll: (id: string, options: RollOptions) => roll(deps, id, options),
  };
}

/**
 * Revokes a key (idempotent: revoking twice keeps the first revoked_at, and records one event).
 * Null when unknown; LastAdminKeyError when `keepAdminOfModes` refuses.
 * Order: the key leaves the admin set (guarded), then its record is revoked, then the event is
 * appended. A process dying after the first step leaves a key that works but no longer counts as
 * an admin for the guard (the safe side); the revoke, retried, finishes.
 */
async function revoke(
  deps: KeyChangeDeps,
  id: string,
  options: RevokeOptions = {},
): Promise<ApiKeyRecord | null> {
  const { redis, keys: k } = deps;
  const found = await deps.lookup(id);
  if (!found) return null;
  const { hash, record: target } = found;
  const at = new Date();
  if (target.status === 'active' && (target.role === 'admin' || options.keepAdminOfModes)) {
    await leaveAdminSet(deps, target, options.keepAdminOfModes);
  }
  const outcome = await revokeScript.run(redis, 1, k.byHash(hash), at.toISOString());
  if (outcome === scriptOutcome.unknown) return null;
  if (outcome === scriptOutcome.changed && options.actor) {
    await deps.audit(keyAuditEvent('revoke', options.actor, target, at));
  }
  await pruneSome(deps, target.account_id, at);
  return deps.findById(id);
}

/**
 * Takes `target` out of its account's admin set; with `modes`, only while another active admin
 * key that is not rolled, of one of the modes, stays in it (else LastAdminKeyError). The client
 * judges the members it read; the script takes the key out only if the set is unchanged.
 */
async function leaveAdminSet(
  deps: KeyChangeDeps,
  target: ApiKeyRecord,
  modes: readonly KeyMode[] | undefined,
) {
  const { redis, keys: k } = deps;
  const admins = k.accountAdmins(target.account_id);
  if (!modes) {
    await redis.srem(admins, target.id);
    return;
  }
  await indexAdmins(deps, target.account_id);
  for (let attempt = 0; attempt < GUARD_ATTEMPTS; attempt++) {
    const members = await redis.smembers(admins);
    const others = await deps.recordsOf(members.filter((member) => member !== target.id));
    const keeper = others.find(
      (key) => key.role === 'admin' && key.status === 'active' && !key.expires_at && modes.includes(key.mode),
    );
    if (!keeper) {
      throw new LastAdminKeyError(
        `${target.id} is the last active admin key that can manage the account's ${target.mode} keys`,
      );
    }
    if ((await leaveAdminsScript.run(redis, 1, admins, target.id, ...members)) === 1) return;
  }
  throw new Error(
    `the admin keys of ${target.account_id} kept changing while ${target.id} was revoked; try again`,
  );
}

/** Fills the admin set of an account whose keys predate it (once; key-store-scripts.ts). */
async function indexAdmins(deps: KeyChangeDeps, accountId: string) {
  const { redis, keys: k } = deps;
  const account = k.account(accountId);
  if (await redis.hexists(account, 'admins_indexed')) return;
  const keys = await deps.recordsOf(await redis.smembers(k.accountKeys(accountId)));
  const admins = keys.filter((key) => key.role === 'admin' && key.status === 'active' && !key.expires_at);
  await indexAdminsScript.run(redis, 2, account, k.accountAdmins(accountId), ...admins.map((key) => key.id));
}

/**
 * Rolls a key: a new key with the same account, mode, tier, role, name and rate limit, while the
 * old one keeps working until `expiresAt`. Null when unknown; KeyNotRollableError when the key is
 * revoked, expired or already rolled.
 * Order: the replacement's pointers (its account's sets, where an admin replacement takes the old
 * key's place in the admin set; the index; the id lookup), its record, then the old key's roll,
 * which decides: a roll that loses (the old key was rolled or revoked meanwhile) deletes the
 * replacement again. A process dying before the decision leaves a replacement nobody holds the
 * plaintext of: listed and revocable, never a rolled key without its replacement.
 */
async function roll(
  deps: KeyChangeDeps,
  id: string,
  options: RollOptions,
): Promise<{ created: ApiKeyRecord & { key: string }; previous: ApiKeyRecord } | null> {
  const { redis, keys: k } = deps;
  const found = await deps.lookup(id);
  if (!found) return null;
  const { hash: oldHash, record: old } = found;
  if (old.status !== 'active' || old.expires_at) throw notRollable(id, old);
  const at = new Date();
  const key = generateApiKey(old.mode);
  const hash = hashApiKey(key);
  const record: ApiKeyRecord = {
    id: `key_${randomBytes(12).toString('hex')}`,
    account_id: old.account_id,
    mode: old.mode,
    tier: old.tier,
    role: old.role,
    name: old.name,
    status: 'active',
    rate_limit: old.rate_limit,
    prefix: displayPrefix(key),
    created_at: at.toISOString(),
  };
  const expiresAt = options.expiresAt.toISOString();
  await deps.addPointers(record, hash, old.role === 'admin' ? { replacing: old.id } : {});
  await deps.writeRecord(record, hash);
  const outcome = await rollScript.run(redis, 1, k.byHash(oldHash), expiresAt, record.id);
  if (outcome !== scriptOutcome.changed) {
    await redis.del(k.byHash(hash));
    await deps.removePointers(record);
    const now = await deps.findById(id);
    if (outcome === scriptOutcome.unknown || !now) return null;
    throw notRollable(id, now);
  }
  if (options.actor) {
    await deps.audit(keyAuditEvent('roll', options.actor, old, at, { newKeyId: record.id, expiresAt }));
  }
  await pruneSome(deps, old.account_id, at);
  return { created: { ...record, key }, previous: (await deps.findById(id))! };
}

/**
 * Bounded pruning, run by every revoke and roll: looks at about PRUNE_BATCH ids of the account's
 * key set (SSCAN from the cursor kept in the account hash, so successive calls walk the whole
 * set); an id whose key is revoked or expired leaves the admin set, and leaves the key set too
 * when that happened more than REVOKED_KEPT_DAYS ago. Each roll adds one id and looks at about
 * PRUNE_BATCH, so the set cannot outgrow the pruning. What it relies on never reverts (a revoked
 * or expired key stays so), so it needs no re-check when it writes.
 */
async function pruneSome(deps: KeyChangeDeps, accountId: string, at: Date) {
  const { redis, keys: k } = deps;
  const account = k.account(accountId);
  const cursor = (await redis.hget(account, 'prune_cursor')) ?? '0';
  const [next, ids] = await redis.sscan(k.accountKeys(accountId), cursor, 'COUNT', PRUNE_BATCH);
  const cutoff = new Date(at.getTime() - REVOKED_KEPT_DAYS * 86_400_000).toISOString();
  const ended = (await deps.recordsOf(ids)).filter((key) => key.status === 'revoked');
  const old = ended.filter((key) => (key.revoked_at ?? '') < cutoff);
  await pruneScript.run(
    redis,
    3,
    account,
    k.accountKeys(accountId),
    k.accountAdmins(accountId),
    next,
    ended.length,
    ...ended.map((key) => key.id),
    ...old.map((key) => key.id),
  );
}

function notRollable(id: string, key: ApiKeyRecord): KeyNotRollableError {
  return new KeyNotRollableError(
    key.expires_at
      ? `${id} was already rolled (replaced by ${key.replaced_by}; it stops working at ${key.expires_at})`
      : `${id} is ${key.status}; only active keys can be rolled`,
  );
}
