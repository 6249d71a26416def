// Reading key records (key-store.ts): by id, by many ids, by account and all of them.
import { toRecord, type ApiKeyRecord } from './key-record.ts';
import type { KeyStoreContext } from './key-store.ts';

export async function lookupKey(
  { redis, keys: k }: KeyStoreContext,
  id: string,
): Promise<{ hash: string; record: ApiKeyRecord } | null> {
  const hash = await redis.get(k.hashById(id));
  if (!hash) return null;
  const fields = await redis.hgetall(k.byHash(hash));
  return fields.id ? { hash, record: toRecord(fields) } : null;
}

export async function findKeyById(context: KeyStoreContext, id: string): Promise<ApiKeyRecord | null> {
  return (await lookupKey(context, id))?.record ?? null;
}

/**
 * The records of those ids that exist, in two round trips whatever their number: each id's lookup
 * and each record are in slots of their own, so these are single commands sent together.
 */
export async function recordsOf({ redis, keys: k }: KeyStoreContext, ids: string[]): Promise<ApiKeyRecord[]> {
  if (!ids.length) return [];
  const hashes = await Promise.all(ids.map((id) => redis.get(k.hashById(id))));
  const found = await Promise.all(
    hashes.filter((hash) => hash).map((hash) => redis.hgetall(k.byHash(hash!))),
  );
  const now = new Date();
  return found.filter((fields) => fields.id).map((fields) => toRecord(fields, now));
}

/** The keys of one account, oldest first. */
export async function listAccountKeys(context: KeyStoreContext, accountId: string): Promise<ApiKeyRecord[]> {
  const ids = await context.redis.smembers(context.keys.accountKeys(accountId));
  return oldestFirst(await recordsOf(context, ids));
}

/** Every key, oldest first: every part of the index. */
export async function listAllKeys(context: KeyStoreContext): Promise<ApiKeyRecord[]> {
  const { redis, parts, keys: k } = context;
  const perPart = await Promise.all(
    Array.from({ length: parts }, (_, part) => redis.zrange(k.index(part), 0, -1)),
  );
  return oldestFirst(await recordsOf(context, perPart.flat()));
}

const oldestFirst = (records: ApiKeyRecord[]) =>
  records.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
