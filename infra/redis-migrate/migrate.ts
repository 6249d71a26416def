// Moves the keys the previous release wrote to the names of this one. One SCAN of every master for
// `<previous prefix>*` (one pass over the key space, not one per family); each key that an old
// pattern of a registry family with `legacy` names matches is moved by the first such family it
// belongs to (its type, and a `rename` that does not leave it): whole, to the name `rename` gives,
// or by the family's own `move`. Idempotent and resumable: a moved key no longer matches any old
// pattern (checked before each rename), so a second run, or a run after an interrupted one, finds
// only what is left to move.
import type { Redis } from 'ioredis';
import type { KeyFamily } from '../../common/redis-keys/family.ts';
import { moveWhole } from './move-key.ts';
import { globMatcher, literalGlob, scanBatches } from './old-keys.ts';

export interface MigrationTarget {
  redis: Redis;
  /** The prefix the services use now (REDIS_KEY_PREFIX as the environment gives it). */
  prefix: string;
  /** The prefix of the previous release's keys (env.ts previousPrefix). */
  previousPrefix: string;
  /** REDIS_GLOBAL_PARTS. */
  parts: number;
  /** A Redis Cluster: keys that change slot are copied (DUMP, RESTORE, DEL) instead of renamed. */
  cluster: boolean;
}

export interface FamilyCount {
  family: string;
  /** Keys moved (in a dry run: that would be). */
  moved: number;
  /** Keys listed by SCAN that were gone when their turn came (moved meanwhile, or expired). */
  gone: number;
  /**
   * Keys its old pattern matches (first of the families whose patterns do) that no family takes:
   * of another type, or names every matching `rename` leaves.
   */
  left: number;
}

export interface MigrateOptions {
  dryRun?: boolean;
  /** Where each key of a dry run is told (`old → new`). */
  say?: (line: string) => void;
  /** Keys moved at once (each move is a few round trips; these overlap on the connection). */
  concurrency?: number;
}

const redisType: Record<KeyFamily['type'], string> = {
  string: 'string',
  hash: 'hash',
  set: 'set',
  'sorted set': 'zset',
  list: 'list',
  stream: 'stream',
};

export class MigrationError extends Error {}

interface Plan {
  family: KeyFamily;
  glob: string;
  matches: (key: string) => boolean;
  count: FamilyCount;
}

export async function migrateKeys(
  target: MigrationTarget,
  families: readonly KeyFamily[],
  options: MigrateOptions = {},
): Promise<FamilyCount[]> {
  const plans: Plan[] = families
    .filter((family) => family.legacy)
    .map((family) => {
      const glob = literalGlob(target.previousPrefix) + family.legacy!.pattern;
      const count = { family: family.name, moved: 0, gone: 0, left: 0 };
      return { family, glob, matches: globMatcher(glob), count };
    });
  if (!plans.length) return [];
  // One pass per order (LegacyNames.order): the families whose moves read other old keys first, the
  // markers last.
  for (const order of ['first', undefined, 'last'] as const) {
    const now = plans.filter((plan) => plan.family.legacy!.order === order);
    if (!now.length) continue;
    for await (const keys of scanBatches(target.redis, `${literalGlob(target.previousPrefix)}*`)) {
      const old = keys.filter((key) => now.some((plan) => plan.matches(key)));
      await inParallel(old, options.concurrency ?? 32, (key) => migrateOne(target, plans, now, key, options));
    }
  }
  return plans.map((plan) => plan.count);
}

/** Moves `oldKey` by the first family of this pass (`now`) that takes it; `plans`: every family. */
async function migrateOne(
  target: MigrationTarget,
  plans: Plan[],
  now: Plan[],
  oldKey: string,
  options: MigrateOptions,
) {
  const { redis, prefix, parts } = target;
  const matching = now.filter((plan) => plan.matches(oldKey));
  const type = await redis.type(oldKey);
  if (type === 'none') {
    matching[0]!.count.gone++;
    return;
  }
  for (const { family, count } of matching) {
    if (type !== redisType[family.type]) continue;
    const legacy = family.legacy!;
    if (legacy.rename) {
      const newKey = legacy.rename(prefix, oldKey.slice(target.previousPrefix.length), parts);
      if (newKey === null) continue;
      // A new name that matched an old pattern would be found and moved again by the next run.
      const clash = plans.find((plan) => plan.matches(newKey));
      if (clash)
        throw new MigrationError(
          `${family.name}: the new name ${newKey} of ${oldKey} matches the previous layout's ${clash.glob} ` +
            `(${clash.family.name}); fix the family's legacy.rename in common/redis-keys/registry.ts`,
        );
      if (options.dryRun) options.say?.(`${oldKey} → ${newKey}`);
      count[options.dryRun ? 'moved' : await moveWhole(redis, oldKey, newKey, target.cluster)]++;
      return;
    }
    if (!legacy.move)
      throw new MigrationError(`${family.name}: its legacy names give neither rename nor move`);
    if (options.dryRun) options.say?.(`${oldKey} → split or rewritten by ${family.module}`);
    else {
      if ((await legacy.move(redis, prefix, oldKey, parts)) === 'left') {
        count.left++;
        return;
      }
      // A move that left its old key would move it again on every run.
      if (await redis.exists(oldKey))
        throw new MigrationError(
          `${family.name}: its legacy.move left ${oldKey} in place (it must delete it last)`,
        );
    }
    count.moved++;
    return;
  }
  matching[0]!.count.left++;
}

async function inParallel<T>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}
