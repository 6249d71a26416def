// How the previous release named the key store's and the audit outbox's keys, and how
// `npm run redis:migrate` moves them to the tagged names (the registry's `legacy` entries,
// common/redis-keys/registry.ts). Every move is idempotent: an old key that is gone has nothing left
// to move, what was already copied is not copied twice (or, for audit events, is stored once by
// ClickHouse's deduplication of their event ids), and the old key is deleted last.
import type { Redis } from 'ioredis';
import type { LegacyNames } from '../redis-keys/family.ts';
import { partOf } from '../redis-keys/tags.ts';
import { keyAuditDeadKey, keyAuditOutboxKey } from './key-audit.ts';
import { keyStoreKeys } from './key-store.ts';

/** `suffix` as `<head><value><tail>` with a value without colons: the value, else null. */
function between(suffix: string, head: string, tail = ''): string | null {
  if (!suffix.startsWith(head) || !suffix.endsWith(tail)) return null;
  const value = suffix.slice(head.length, suffix.length - tail.length);
  return value && !value.includes(':') ? value : null;
}

/**
 * The SHA-256 of key `id`: from its id lookup, under the old name or, already moved, the new one.
 * The old name is read first: a lookup being moved meanwhile exists under the new name before the
 * old one goes (RENAME, or RESTORE then DEL), so one of the two reads finds it.
 */
export async function hashOfKeyId(redis: Redis, prefix: string, oldPrefix: string, id: string) {
  return (
    (await redis.get(`${oldPrefix}key:id:${id}`)) ?? (await redis.get(keyStoreKeys(prefix).hashById(id)))
  );
}

/** Copies a stream's entries one by one (add to the new stream, then delete the old entry), then deletes it. */
async function moveStream(redis: Redis, oldKey: string, target: (event: string) => string) {
  for (;;) {
    const entries = await redis.xrange(oldKey, '-', '+', 'COUNT', 100);
    for (const [entryId, fields] of entries) {
      const event = fields[fields.indexOf('event') + 1] ?? '';
      await redis.xadd(target(event), '*', ...fields);
      await redis.xdel(oldKey, entryId);
    }
    if (entries.length < 100) break;
  }
  await redis.del(oldKey);
}

/** The account an audit event belongs to ('' when it is not readable: part of the empty id). */
function accountOfEvent(event: string): string {
  try {
    return String((JSON.parse(event) as { account_id?: unknown }).account_id ?? '');
  } catch {
    return '';
  }
}

const accountFamily = (tail: string, build: (prefix: string, account: string) => string): LegacyNames => ({
  pattern: `account:*${tail}`,
  rename: (prefix, suffix) => {
    const account = between(suffix, 'account:', tail);
    return account === null ? null : build(prefix, account);
  },
});

export const keyStoreLegacy = {
  record: {
    pattern: 'key:h:*',
    rename: (prefix, suffix) => {
      const hash = between(suffix, 'key:h:');
      return hash === null ? null : keyStoreKeys(prefix).byHash(hash);
    },
  },
  idLookup: {
    pattern: 'key:id:*',
    rename: (prefix, suffix) => {
      const id = between(suffix, 'key:id:');
      return id === null ? null : keyStoreKeys(prefix).hashById(id);
    },
  },
  // The one sorted set of every key id becomes the index's parts (by id), scores kept.
  index: {
    pattern: 'keys',
    async move(redis, prefix, oldKey, parts) {
      const flat = await redis.zrange(oldKey, 0, -1, 'WITHSCORES');
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const id = flat[i]!;
        await redis.zadd(keyStoreKeys(prefix).index(partOf(id, parts)), flat[i + 1]!, id);
      }
      await redis.del(oldKey);
    },
  },
  account: accountFamily('', (prefix, account) => keyStoreKeys(prefix).account(account)),
  accountKeys: accountFamily(':keys', (prefix, account) => keyStoreKeys(prefix).accountKeys(account)),
  accountAdmins: accountFamily(':admins', (prefix, account) => keyStoreKeys(prefix).accountAdmins(account)),
} satisfies Record<string, LegacyNames>;

export const keyAuditLegacy = {
  // Events go to the outbox part of their account; one copied twice (a move that died between its
  // two steps) is stored once: the flush inserts with the event id as deduplication token.
  outbox: {
    pattern: 'audit:keys',
    move: (redis, prefix, oldKey, parts) =>
      moveStream(redis, oldKey, (event) => keyAuditOutboxKey(prefix, partOf(accountOfEvent(event), parts))),
  },
  dead: {
    pattern: 'audit:keys:dead',
    move: (redis, prefix, oldKey, parts) =>
      moveStream(redis, oldKey, (event) => keyAuditDeadKey(prefix, partOf(accountOfEvent(event), parts))),
  },
} satisfies Record<string, LegacyNames>;
