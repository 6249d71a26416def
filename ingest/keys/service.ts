// Key management by admin keys (contract "API keys"; docs/auth.md "Managing keys over the API"):
// who may see and change which key, and what a new key may be. The store does the changes and
// records them (common/auth/key-store.ts); routes only translate HTTP to these calls.
//
// Scope of an admin key: its own account; a live admin key manages live and test keys, a test
// admin key test keys only (test keys live in less trusted places such as CI; a leaked one must
// not lead to live keys). Keys outside the scope are 404, as if they did not exist. A new key, and
// a roll (which hands out a new secret with the old key's powers), never exceeds the acting key:
// tier at most its own, role among those it may grant (roles.ts), mode within its scope.
// A rolled key (expires_at set, in its grace period) may still read but changes no key: its
// secret is the one being replaced, possibly because it leaked, and it must not be able to mint a
// permanent key or revoke its own replacement.
import type { KeyActor } from '../../common/auth/key-audit.ts';
import type { Logger } from '../../common/logger.ts';
import {
  KeyNotRollableError,
  KeyStoreError,
  LastAdminKeyError,
  type ApiKeyRecord,
  type KeyStore,
} from '../../common/auth/key-store.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import type { QuotaStore } from '../quota.ts';
import { publicKey } from './public-key.ts';
import { checkScope, inScope, managersOf, refuseRolled, tiersUpTo } from './scope.ts';
import {
  KEY_PAGE_MAX,
  ROLL_DEFAULT_HOURS,
  type CreateKeyBody,
  type KeyListQuery,
  type KeyRecordBody,
  type RollKeyBody,
} from './schemas.ts';

export { managedModes, refuseRolled } from './scope.ts';

/** Active keys an account may hold before creating more over the API is refused (CLI: no cap). */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 100;
/**
 * Keys an account may create or roll over the API per UTC day (CLI: no cap). Revoked and rolled
 * records stay in Redis, so without a daily bound an admin key could grow its account's key set
 * (and every GET /keys, create and revoke that reads it) without end by creating and revoking.
 */
export const MAX_KEY_CHANGES_PER_DAY = 100;

export interface KeyAdminDeps {
  keys: KeyStore;
  /** Daily count of keys created or rolled (ingest/quota.ts, kind key_changes). */
  quota: QuotaStore;
  /** Copies the audit events the changes queued into ClickHouse (key-audit-flush.ts). */
  audit: { soon(): void };
  logger: Logger;
}

export function keyAdminService(deps: KeyAdminDeps) {
  return {
    create: (admin: ApiKeyRecord, actor: KeyActor, body: CreateKeyBody) =>
      createKey(deps, admin, actor, body),
    list: (admin: ApiKeyRecord, query: KeyListQuery) => listKeys(deps, admin, query),
    revoke: (admin: ApiKeyRecord, actor: KeyActor, id: string) => revokeKey(deps, admin, actor, id),
    roll: (admin: ApiKeyRecord, actor: KeyActor, id: string, body: RollKeyBody) =>
      rollKey(deps, admin, actor, id, body),
  };
}

export type KeyAdminService = ReturnType<typeof keyAdminService>;

async function createKey(deps: KeyAdminDeps, admin: ApiKeyRecord, actor: KeyActor, body: CreateKeyBody) {
  const { keys } = deps;
  refuseRolled(admin);
  const { mode, name, tier = admin.tier, role = 'standard' } = body;
  checkScope(admin, { mode, tier, role });
  const current = await redisCall(() => keys.listAccount(admin.account_id));
  // Keys revoked long ago leave the account's set here, all of them (the list is read anyway);
  // revoke and roll prune a bounded part of it each (key-store-scripts.ts).
  await redisCall(() => keys.pruneRevoked(admin.account_id, current));
  const active = current.filter((key) => key.status === 'active').length;
  if (active >= MAX_ACTIVE_KEYS_PER_ACCOUNT) {
    throw new AppError(
      'limit_exceeded',
      `An account may have at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; revoke one first`,
      { details: { limit: MAX_ACTIVE_KEYS_PER_ACCOUNT }, retriable: false },
    );
  }
  const created = await counted(deps, admin, () =>
    redisCall(() => keys.create({ mode, tier, role, name, accountId: admin.account_id }, actor)),
  );
  deps.audit.soon();
  return { ...publicKey(created), key: created.key };
}

/** One page of the keys `admin` manages, oldest first, after the key `after` (a cursor). */
async function listKeys(
  deps: KeyAdminDeps,
  admin: ApiKeyRecord,
  query: KeyListQuery,
): Promise<{ keys: KeyRecordBody[]; next_after: string | null }> {
  const { limit = KEY_PAGE_MAX, after } = query;
  const all = (await redisCall(() => deps.keys.listAccount(admin.account_id))).filter((key) =>
    inScope(admin, key),
  );
  const start = after === undefined ? 0 : all.findIndex((key) => key.id === after) + 1;
  if (start === 0 && after !== undefined) {
    throw new AppError('invalid_parameter', `after: no key ${after} in this list`, {
      details: [{ parameter: 'after', message: 'not a key of this list' }],
    });
  }
  const page = all.slice(start, start + limit);
  const more = start + limit < all.length;
  return { keys: page.map(publicKey), next_after: more ? page.at(-1)!.id : null };
}

async function revokeKey(deps: KeyAdminDeps, admin: ApiKeyRecord, actor: KeyActor, id: string) {
  refuseRolled(admin);
  const target = await manageable(deps, admin, id);
  // The tier ceiling of create and roll holds for revoke too: a lower-tier admin key must not
  // switch off the account's higher-tier keys.
  const tiersAllowed = tiersUpTo(admin.tier);
  if (!tiersAllowed.includes(target.tier)) {
    throw new AppError('scope_exceeded', `A ${admin.tier} admin key cannot revoke a ${target.tier} key`, {
      details: { field: 'tier', requested: target.tier, allowed: tiersAllowed },
      retriable: false,
    });
  }
  let revoked: ApiKeyRecord | null;
  try {
    revoked = await redisCall(() =>
      deps.keys.revoke(id, {
        actor,
        // No lock-out: an admin key goes only while another one that can manage its keys stays.
        ...(target.role === 'admin' ? { keepAdminOfModes: managersOf(target.mode) } : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof LastAdminKeyError)) throw error;
    throw new AppError(
      'last_admin_key',
      `${id} is the account's last active admin key for its ${target.mode} keys (rolled keys do ` +
        'not count); create or keep another admin key first',
      { retriable: false },
    );
  }
  if (!revoked) throw new AppError('not_found', `No key ${id}`);
  deps.audit.soon();
  return { id, status: 'revoked' as const };
}

async function rollKey(
  deps: KeyAdminDeps,
  admin: ApiKeyRecord,
  actor: KeyActor,
  id: string,
  body: RollKeyBody,
) {
  refuseRolled(admin);
  const target = await manageable(deps, admin, id);
  checkScope(admin, target);
  const hours = body.expires_in_hours ?? ROLL_DEFAULT_HOURS;
  const expiresAt = new Date(Date.now() + Math.round(hours * 3_600_000));
  let rolled: Awaited<ReturnType<KeyStore['roll']>>;
  try {
    rolled = await counted(deps, admin, () => redisCall(() => deps.keys.roll(id, { expiresAt, actor })));
  } catch (error) {
    if (!(error instanceof KeyNotRollableError)) throw error;
    throw new AppError('key_not_rollable', error.message, { retriable: false });
  }
  if (!rolled) throw new AppError('not_found', `No key ${id}`);
  deps.audit.soon();
  return {
    ...publicKey(rolled.created),
    key: rolled.created.key,
    replaces: { id: rolled.previous.id, expires_at: rolled.previous.expires_at! },
  };
}

/** The key `id` if `admin` may manage it, else 404. */
async function manageable(deps: KeyAdminDeps, admin: ApiKeyRecord, id: string): Promise<ApiKeyRecord> {
  const target = await redisCall(() => deps.keys.findById(id));
  if (!target || !inScope(admin, target)) {
    throw new AppError('not_found', `No key ${id} in this account that this key may manage`);
  }
  return target;
}

/** Runs a create or roll against the account's daily count; given back when it changes nothing. */
async function counted<T>(deps: KeyAdminDeps, admin: ApiKeyRecord, change: () => Promise<T>): Promise<T> {
  const owner = { accountId: admin.account_id, mode: admin.mode };
  const at = new Date();
  await deps.quota.reserve(owner, 'key_changes', 1, MAX_KEY_CHANGES_PER_DAY, at).catch((error: unknown) => {
    throw error instanceof AppError ? error : dependencyUnavailable('redis', error);
  });
  // A refund that fails leaves the day's count one too high (the account can make one change
  // fewer today): logged, never turned into a failure of the request it compensates.
  const refund = () =>
    deps.quota.refund(owner, 'key_changes', 1, at).catch((error: unknown) =>
      deps.logger.warn('key change not given back to the daily count', {
        account_id: owner.accountId,
        mode: owner.mode,
        error: String(error),
      }),
    );
  try {
    const result = await change();
    if (result === null) await refund();
    return result;
  } catch (error) {
    await refund();
    throw error;
  }
}

async function redisCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AppError || error instanceof KeyStoreError) throw error;
    throw dependencyUnavailable('redis', error);
  }
}
