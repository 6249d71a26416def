// The Redis key migration (infra/redis-migrate/migrate.ts) with registry entries of its own, on the
// real Redis, under a prefix of its own: renamed keys keep their content and TTL, a family's own
// `move` is called, keys of another family are left, a second run and an interrupted one finish
// with nothing left, a dry run moves nothing, and a new name that an old pattern matches is refused.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { KeyFamily } from '../../common/redis-keys/family.ts';
import { accountSpace, partOf, partSpace } from '../../common/redis-keys/tags.ts';
import { migrateKeys, type MigrationTarget } from '../../infra/redis-migrate/migrate.ts';
import { scanBatches } from '../../infra/redis-migrate/old-keys.ts';
import { testRedis } from '../support/api.ts';
import { npmRun } from '../support/npm-run.ts';

const parts = 4;
const common = { module: 'test', tag: 'account', ttl: 'none', bound: 'test' } as const;

/** `quota:<account>:<day>` (a string) → `{a:<account>}:quota:<account>:<day>`. */
const quota: KeyFamily = {
  ...common,
  name: '{a:<account>}:quota:<account>:<day>',
  type: 'string',
  build: (p) => `${accountSpace(p, 'a1')}quota:a1:d`,
  legacy: { pattern: 'quota:*', rename: (p, suffix) => accountSpace(p, suffix.split(':')[1]!) + suffix },
};

/** `acct:<account>` (a hash); `acct:<account>:tags` is another family's (a set, not renamed). */
const account: KeyFamily = {
  ...common,
  name: '{a:<account>}:acct:<account>',
  type: 'hash',
  build: (p) => `${accountSpace(p, 'a1')}acct:a1`,
  legacy: {
    pattern: 'acct:*',
    rename: (p, suffix) => {
      const [, id, ...rest] = suffix.split(':');
      return rest.length ? null : accountSpace(p, id!) + suffix;
    },
  },
};

/** `index` (one sorted set of every account) → REDIS_GLOBAL_PARTS parts by member. */
const index: KeyFamily = {
  ...common,
  tag: 'part',
  name: '{g:<n>}:index',
  type: 'sorted set',
  build: (p) => `${partSpace(p, 0)}index`,
  legacy: {
    pattern: 'index',
    move: async (redis, p, oldKey, n) => {
      const members = await redis.zrange(oldKey, 0, -1, 'WITHSCORES');
      for (let i = 0; i < members.length; i += 2)
        await redis.zadd(`${partSpace(p, partOf(members[i]!, n))}index`, members[i + 1]!, members[i]!);
      await redis.del(oldKey);
    },
  },
};

const families = [quota, account, index];

async function oldStore(options: { cluster?: boolean } = {}) {
  const redis = await testRedis();
  const prefix = `test:mig:${randomUUID()}:`;
  const target: MigrationTarget = {
    redis,
    prefix,
    // On one node a cluster's previous prefix (a hash tag) puts old and new keys in other slots.
    previousPrefix: options.cluster ? `{${prefix}}` : prefix,
    parts,
    cluster: options.cluster ?? false,
  };
  const old = target.previousPrefix;
  await redis.set(`${old}quota:acme:2026-01-01`, '7', 'EX', 3600);
  await redis.set(`${old}quota:zeta:2026-01-01`, '3');
  await redis.hset(`${old}acct:acme`, { tier: 'pro', name: 'Acme' });
  await redis.sadd(`${old}acct:acme:tags`, 'x');
  await redis.set(`${old}acct:acme:note`, 'not a hash: another family');
  await redis.zadd(`${old}index`, 1, 'k1', 2, 'k2', 3, 'k3', 4, 'k4', 5, 'k5');
  return { redis, target, old, prefix };
}

async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of scanBatches(redis, `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`))
    keys.push(...batch);
  return keys.sort();
}

const byFamily = (counts: Awaited<ReturnType<typeof migrateKeys>>) =>
  Object.fromEntries(counts.map((c) => [c.family, { moved: c.moved, left: c.left }]));

describe('Redis key migration', () => {
  it('happy: renames keys with their content and TTL, calls a family move, leaves other families, and a second run moves nothing', async () => {
    const { redis, target, old, prefix } = await oldStore();
    const counts = await migrateKeys(target, families);
    expect(byFamily(counts)).toEqual({
      [quota.name]: { moved: 2, left: 0 },
      [account.name]: { moved: 1, left: 2 },
      [index.name]: { moved: 1, left: 0 },
    });
    expect(await redis.get(`${accountSpace(prefix, 'acme')}quota:acme:2026-01-01`)).toBe('7');
    const ttl = await redis.ttl(`${accountSpace(prefix, 'acme')}quota:acme:2026-01-01`);
    expect(ttl).toBeGreaterThan(3500);
    expect(await redis.ttl(`${accountSpace(prefix, 'zeta')}quota:zeta:2026-01-01`)).toBe(-1);
    expect(await redis.hgetall(`${accountSpace(prefix, 'acme')}acct:acme`)).toEqual({
      tier: 'pro',
      name: 'Acme',
    });
    const indexParts = (await keysUnder(redis, prefix)).filter((key) => key.endsWith('}:index'));
    expect(indexParts.length).toBeGreaterThan(1);
    const members = (await Promise.all(indexParts.map((key) => redis.zrange(key, 0, -1)))).flat().sort();
    expect(members).toEqual(['k1', 'k2', 'k3', 'k4', 'k5']);
    // What is left under the old names is what no family took: the set and the string of `acct:`.
    expect((await keysUnder(redis, old)).filter((key) => !key.startsWith(`${old}{`))).toEqual([
      `${old}acct:acme:note`,
      `${old}acct:acme:tags`,
    ]);

    const again = await migrateKeys(target, families);
    expect(again.map((c) => c.moved)).toEqual([0, 0, 0]);
  });

  it('happy: across cluster slots a key is copied with its TTL (DUMP, RESTORE, DEL), and a run stopped between RESTORE and DEL is finished by the next', async () => {
    const { redis, target, old, prefix } = await oldStore({ cluster: true });
    // As if a run died after restoring this key and before deleting the old one.
    const payload = (await redis.dumpBuffer(`${old}quota:zeta:2026-01-01`))!;
    await redis.restore(`${accountSpace(prefix, 'zeta')}quota:zeta:2026-01-01`, 0, payload);

    const counts = await migrateKeys(target, families);
    expect(counts.map((c) => c.moved)).toEqual([2, 1, 1]);
    expect(
      await redis.exists(`${old}quota:acme:2026-01-01`, `${old}quota:zeta:2026-01-01`, `${old}acct:acme`),
    ).toBe(0);
    expect(await redis.get(`${accountSpace(prefix, 'zeta')}quota:zeta:2026-01-01`)).toBe('3');
    expect(await redis.ttl(`${accountSpace(prefix, 'acme')}quota:acme:2026-01-01`)).toBeGreaterThan(3500);
    expect(await redis.hget(`${accountSpace(prefix, 'acme')}acct:acme`, 'tier')).toBe('pro');
    expect((await migrateKeys(target, families)).map((c) => c.moved)).toEqual([0, 0, 0]);
  });

  it('fault: a run that stops halfway is finished by the next, which moves only the rest', async () => {
    const { redis, target, prefix } = await oldStore();
    for (let i = 0; i < 40; i++)
      await redis.set(`${target.previousPrefix}quota:bulk${i}:2026-01-01`, String(i));
    let renamed = 0;
    const failing: KeyFamily = {
      ...quota,
      legacy: {
        ...quota.legacy!,
        rename: (p, suffix, n) => {
          if (++renamed > 20) throw new Error('connection lost');
          return quota.legacy!.rename!(p, suffix, n);
        },
      },
    };
    await expect(migrateKeys(target, [failing], { concurrency: 1 })).rejects.toThrow('connection lost');
    const rest = await migrateKeys(target, families);
    expect(rest[0]!.moved).toBe(42 - 20);
    for (let i = 0; i < 40; i++)
      expect(await redis.get(`${accountSpace(prefix, `bulk${i}`)}quota:bulk${i}:2026-01-01`)).toBe(String(i));
    expect((await migrateKeys(target, families)).map((c) => c.moved)).toEqual([0, 0, 0]);
  });

  it('happy: a dry run says each key it would move and moves none', async () => {
    const { redis, target, old, prefix } = await oldStore();
    const before = await keysUnder(redis, old);
    const said: string[] = [];
    const counts = await migrateKeys(target, families, { dryRun: true, say: (line) => said.push(line) });
    expect(counts.map((c) => c.moved)).toEqual([2, 1, 1]);
    expect(said.sort()).toEqual(
      [
        `${old}acct:acme → ${accountSpace(prefix, 'acme')}acct:acme`,
        `${old}index → split or rewritten by test`,
        `${old}quota:acme:2026-01-01 → ${accountSpace(prefix, 'acme')}quota:acme:2026-01-01`,
        `${old}quota:zeta:2026-01-01 → ${accountSpace(prefix, 'zeta')}quota:zeta:2026-01-01`,
      ].sort(),
    );
    expect(await keysUnder(redis, old)).toEqual(before);
  });

  it("happy: a family ordered first moves while the old keys it reads are there; one that can't be placed is left", async () => {
    const { redis, target, old, prefix } = await oldStore();
    // `member:<id>` names its account only through the old `acct:<account>` hash's `member` field.
    await redis.hset(`${old}acct:acme`, 'member', 'm1');
    await redis.set(`${old}member:m1`, 'acme');
    await redis.set(`${old}member:m2`, 'nobody');
    const member: KeyFamily = {
      ...common,
      name: '{a:<account>}:member:<id>',
      type: 'string',
      build: (p) => `${accountSpace(p, 'a1')}member:m1`,
      legacy: {
        pattern: 'member:*',
        order: 'first',
        move: async (r, p, oldKey) => {
          const account = await r.get(oldKey);
          if (!account || !(await r.exists(`${old}acct:${account}`))) return 'left';
          await r.set(`${accountSpace(p, account)}member:${oldKey.split(':').at(-1)}`, account);
          await r.del(oldKey);
        },
      },
    };
    // Listed after the family whose old keys it reads: the order, not the list, decides.
    const counts = await migrateKeys(target, [...families, member]);
    expect(counts.find((c) => c.family === member.name)).toEqual({
      family: member.name,
      moved: 1,
      gone: 0,
      left: 1,
    });
    expect(await redis.get(`${accountSpace(prefix, 'acme')}member:m1`)).toBe('acme');
    expect(await redis.get(`${old}member:m2`)).toBe('nobody'); // left where it is, to expire
    expect(await redis.exists(`${old}acct:acme`)).toBe(0); // moved in the pass after
  });

  it('error: a new name that an old pattern matches is refused before the key moves', async () => {
    const { redis, target, old } = await oldStore();
    // `quota:acme:…` → `quota:acme:…:v2`: found and moved again by every later run.
    const looping: KeyFamily = {
      ...quota,
      legacy: { pattern: 'quota:*', rename: (p, suffix) => `${p}${suffix}:v2` },
    };
    await expect(migrateKeys(target, [looping])).rejects.toThrow(/matches the previous layout's .*quota:\*/);
    expect(await redis.exists(`${old}quota:acme:2026-01-01`, `${old}quota:zeta:2026-01-01`)).toBe(2);
  });

  it("happy: `npm run redis:migrate` runs with the services' variables and says when there is nothing to move", async () => {
    const prefix = `test:mig:${randomUUID()}:`;
    const run = await npmRun('redis:migrate', { REDIS_KEY_PREFIX: prefix });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`redis:migrate: keys of the previous release under `);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^redis:migrate: .*nothing to move/);
  });
});
