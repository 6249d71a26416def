// Moving one key whole to its new name, keeping its content and its TTL.
import type { Redis } from 'ioredis';
import { keySlot } from '../../common/redis-keys/slot.ts';

/** 'gone': the old key no longer exists (moved by an earlier or a parallel run, or expired). */
export type MoveOutcome = 'moved' | 'gone';

/**
 * RENAME where both names share a slot (always on one node): atomic, keeps the TTL. Across slots
 * of a cluster RENAME is refused, so: PTTL and DUMP the old key, RESTORE it under the new name with
 * that TTL, then DEL the old one. A run that dies between RESTORE and DEL leaves both; the next run
 * finds the old key again and restores it over the new one (REPLACE: the same content), then
 * deletes it, so the move is resumable. The old name wins over a new one written meanwhile: that
 * is why the services stay stopped while it runs (docs/operations.md, "Upgrading Redis keys").
 */
export async function moveWhole(
  redis: Redis,
  oldKey: string,
  newKey: string,
  cluster: boolean,
): Promise<MoveOutcome> {
  if (!cluster || keySlot(oldKey) === keySlot(newKey)) {
    try {
      await redis.rename(oldKey, newKey);
      return 'moved';
    } catch (error) {
      if (/no such key/i.test((error as Error).message)) return 'gone';
      throw error;
    }
  }
  const ttlMs = await redis.pttl(oldKey);
  const payload = await redis.dumpBuffer(oldKey);
  if (ttlMs === -2 || payload === null) return 'gone';
  await redis.restore(newKey, ttlMs > 0 ? ttlMs : 0, payload, 'REPLACE');
  await redis.del(oldKey);
  return 'moved';
}
