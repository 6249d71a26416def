// One module per Redis key family: each key name is spelled in its family's module only (the key
// builder beside its reader and writer), and every process that touches the family goes through
// that module. The families are listed in common/redis-keys/registry.ts. This scans the services'
// source for spelled key names (test/support/key-spellings.ts) and fails on a name spelled outside
// its family's module, or on a name of no registered family; it also checks the registry itself
// (each builder makes a name of its family's shape) and that docs/redis.md shows it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keyFamilyTable, pageWithKeyFamilyTable } from '../../common/redis-keys/family.ts';
import { keyFamilies } from '../../common/redis-keys/registry.ts';
import { hashTagOf } from '../../common/redis-keys/slot.ts';
import { keySpellingsIn, keySpellingsUnder } from '../support/key-spellings.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const serviceDirs = ['analytics-api', 'common', 'gateway', 'ingest', 'keys', 'stream'];

/** A family's name as the scanner reduces spellings: every varying part `*`. */
const patternOf = (name: string) => name.replace(/<[^>]+>/g, '*');
const families = keyFamilies.map((f) => ({ ...f, pattern: patternOf(f.name) }));

/**
 * Whether a spelling names this family: the same pattern, or, for a spelling that ends in `:`, the
 * start of its names (the part a script or builder appends the rest to: `rl:` + key id).
 */
const spells = (spelling: string, pattern: string) =>
  pattern === spelling || (spelling.endsWith(':') && pattern.startsWith(spelling));

describe('Redis key family modules', () => {
  // The registry's own files describe families (and rename the previous release's keys for the
  // migration from any family's old name): they spell names on every family's behalf.
  const spellings = keySpellingsUnder(root, serviceDirs).filter(
    (s) => !s.file.startsWith('common/redis-keys/'),
  );

  it('spells every key name in its family module only', () => {
    const misplaced = spellings
      .filter((s) => !families.some((f) => f.module === s.file && spells(s.pattern, f.pattern)))
      .map((s) => {
        const homes = [...new Set(families.filter((f) => spells(s.pattern, f.pattern)).map((f) => f.module))];
        return homes.length
          ? `${s.file}:${s.line} spells "${s.pattern}": use the builder of ${homes.join(' or ')}`
          : `${s.file}:${s.line} spells "${s.pattern}", a key family not in common/redis-keys/registry.ts`;
      });
    expect(misplaced).toEqual([]);
  });

  it('registers each family once, and finds it spelled in its module', () => {
    const names = families.map((f) => f.name);
    expect(names.length).toBe(new Set(names).size);
    // A family named after another of its module (`batch:*:images:seen`) is built from that one's name.
    const spelledIn = (f: (typeof families)[number]) =>
      spellings.some(
        (s) => s.file === f.module && (spells(s.pattern, f.pattern) || f.pattern.startsWith(`${s.pattern}:`)),
      );
    expect(families.filter((f) => !spelledIn(f)).map((f) => `${f.name} in ${f.module}`)).toEqual([]);
  });

  it("builds names of each family's registered shape", () => {
    const shapeOf = (name: string) =>
      new RegExp(
        `^${name
          .split(/<[^>]+>/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.+')}$`,
      );
    const wrong = families
      .map((f) => ({ name: f.name, built: f.build('rls:').slice('rls:'.length) }))
      .filter(({ name, built }) => !shapeOf(name).test(built))
      .map(({ name, built }) => `${name}: its builder made ${built}`);
    expect(wrong).toEqual([]);
  });

  it('places every family by a hash tag of its own, whose keys it builds (none left in the one slot of the prefix)', () => {
    expect(families.filter((f) => f.tag === 'prefix').map((f) => f.name)).toEqual([]);
    const untagged = families.filter((f) => hashTagOf(f.build('rls:')) === null).map((f) => f.name);
    expect(untagged).toEqual([]);
  });

  it('is shown in docs/redis.md (npm run docs:redis writes the table)', () => {
    const page = readFileSync(path.join(root, 'docs/redis.md'), 'utf8');
    expect(page).toBe(pageWithKeyFamilyTable(page, keyFamilyTable(keyFamilies)));
  });

  it('error: notices a key name spelled by template, concatenation or Lua', () => {
    const planted = [
      'const a = `${deps.prefix}batch:${batchId}:images`;',
      "const b = env.REDIS_KEY_PREFIX + 'workers';",
      "const c = redisScript(`local k = ARGV[1] .. 'usage:' .. id`);",
      '// a comment may mention `${prefix}batch:${id}` freely',
      'const topic = `${prefix}${name}`;',
      'const d = `${listingBucketSpace(prefix, bucket)}owners:v2`;',
      'const e = `${deps.prefix}{job:${name}:${at}}`;',
      "const f = accountSpace(env.REDIS_KEY_PREFIX, id) + 'quota';",
    ].join('\n');
    expect(keySpellingsIn('ingest/planted.ts', planted).map((s) => [s.line, s.pattern])).toEqual([
      [1, 'batch:*:images'],
      [2, 'workers'],
      [3, 'lua:usage:'],
      [6, '{o:*}:owners:v2'],
      [7, '{job:*:*}'],
      [8, '{a:*}:quota'],
    ]);
  });
});
