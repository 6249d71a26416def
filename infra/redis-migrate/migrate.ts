// Moves the keys the previous release wrote to the names of this one: for each registry family
// with `legacy` names, SCAN every master for `<previous prefix><pattern>` and move each key found
// (rename: whole, to the name its `rename` gives; move: the family's own function). Idempotent and
// resumable: a moved key no longer matches any old pattern (checked before each rename), so a
// second run, or a run after an interrupted one, finds only what is left to move.
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
  /** Keys that match the pattern but are not of the family (another type, or `rename` gave null). */
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

export async function migrateKeys(
  target: MigrationTarget,
  families: readonly KeyFamily[],
  options: MigrateOptions = {},
): Promise<FamilyCount[]> {
  const withLegacy = families.filter((f) => f.legacy);
  const oldPatterns = withLegacy.map((f) => ({
    family: f.name,
    glob: literalGlob(target.previousPrefix) + f.legacy!.pattern,
  }));
  const oldMatchers = oldPatterns.map((p) => ({ ...p, matches: globMatcher(p.glob) }));
  const counts: FamilyCount[] = [];
  for (const family of withLegacy) {
    const count: FamilyCount = { family: family.name, moved: 0, gone: 0, left: 0 };
    const glob = oldPatterns.find((p) => p.family === family.name)!.glob;
    for await (const keys of scanBatches(target.redis, glob)) {
      await inParallel(keys, options.concurrency ?? 32, async (oldKey) => {
        count[await migrateOne(target, family, oldKey, oldMatchers, options)]++;
      });
    }
    counts.push(count);
  }
  return counts;
}

async function migrateOne(
  target: MigrationTarget,
  family: KeyFamily,
  oldKey: string,
  oldMatchers: { family: string; glob: string; matches: (key: string) => boolean }[],
  options: MigrateOptions,
): Promise<keyof Omit<FamilyCount, 'family'>> {
  const { redis, prefix, parts } = target;
  const legacy = family.legacy!;
  const type = await redis.type(oldKey);
  if (type === 'none') return 'gone';
  if (type !== redisType[family.type]) return 'left';
  if (legacy.rename) {
    const newKey = legacy.rename(prefix, oldKey.slice(target.previousPrefix.length), parts);
    if (newKey === null) return 'left';
    // A new name that matched an old pattern would be found and moved again by the next run.
    const clash = oldMatchers.find((m) => m.matches(newKey));
    if (clash)
      throw new MigrationError(
        `${family.name}: the new name ${newKey} of ${oldKey} matches the previous layout's ${clash.glob} ` +
          `(${clash.family}); fix the family's legacy.rename in common/redis-keys/registry.ts`,
      );
    if (options.dryRun) {
      options.say?.(`${oldKey} → ${newKey}`);
      return 'moved';
    }
    return moveWhole(redis, oldKey, newKey, target.cluster);
  }
  if (!legacy.move) throw new MigrationError(`${family.name}: its legacy names give neither rename nor move`);
  if (options.dryRun) {
    options.say?.(`${oldKey} → split or rewritten by ${family.module}`);
    return 'moved';
  }
  await legacy.move(redis, prefix, oldKey, parts);
  // A move that left its old key would move it again on every run.
  if (await redis.exists(oldKey))
    throw new MigrationError(
      `${family.name}: its legacy.move left ${oldKey} in place (it must delete it last)`,
    );
  return 'moved';
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
