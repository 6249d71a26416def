// Listing owners (stream/listings/owners.ts): the stream's record of which Kafka position stores each
// listing id, against the real Redis and, for the rebuild, the real ClickHouse. Each test uses its own
// key prefix, so it never touches the owners of the running stack.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import {
  listingOwners,
  moveLegacyOwnersBucket,
  ownersBucketKey,
  ownersRebuildKeys,
} from '../../stream/listings/owners.ts';
import { ensureOwnersBuilt } from '../../stream/listings/owners-rebuild.ts';
import { scanAll } from '../../common/clients/redis.ts';
import { keySlot } from '../../common/redis-keys/slot.ts';
import { env, testClickHouse, testRedis } from '../support/api.ts';

const ownPrefix = () => `${env.REDIS_KEY_PREFIX}test-${randomUUID().slice(0, 8)}:`;

describe('stream: listing owners', () => {
  it('happy: the first position to claim an id owns it; others see the owner; a release frees only its own claim', async () => {
    const owners = listingOwners(await testRedis(), ownPrefix());
    const [a, b] = [randomUUID(), randomUUID()];
    expect(
      await owners.claim([
        { listingId: a, position: '0:10:0' },
        { listingId: b, position: '0:10:1' },
        { listingId: a, position: '0:10:2' }, // the same id twice in one message: the first wins
      ]),
    ).toEqual(['0:10:0', '0:10:1', '0:10:0']);
    // A replay of the owner finds itself; another message finds the owner.
    expect(await owners.claim([{ listingId: a, position: '0:10:0' }])).toEqual(['0:10:0']);
    expect(await owners.claim([{ listingId: a, position: '3:99:0' }])).toEqual(['0:10:0']);
    await owners.release([{ listingId: a, position: '3:99:0' }]); // not the owner: no effect
    expect(await owners.claim([{ listingId: a, position: '3:99:0' }])).toEqual(['0:10:0']);
    await owners.release([{ listingId: a, position: '0:10:0' }]); // refused by ClickHouse, say
    expect(await owners.claim([{ listingId: a, position: '3:99:0' }])).toEqual(['3:99:0']);
  });

  it('error: owners lost from Redis are rebuilt from ClickHouse before consuming, so a stored id stays owned', async () => {
    const redis = await testRedis();
    const prefix = ownPrefix(); // a namespace without the "built" marker: as after a Redis data loss
    const listingId = randomUUID();
    const topic = `test.owners.${randomUUID().slice(0, 8)}`;
    await testClickHouse().insert({
      table: 'listings',
      format: 'JSONEachRow',
      values: [
        {
          listing_id: listingId,
          account_id: `owners-${randomUUID().slice(0, 8)}`,
          batch_id: randomUUID(),
          is_test: 1,
          title: 'stored before the loss',
          _topic: topic,
          _partition: 4,
          _offset: 1234,
          _item: 7,
        },
      ],
    });
    const owners = listingOwners(redis, prefix);
    const deps = { redis, clickhouse: testClickHouse(), owners, prefix, logger: createLogger('error') };
    await ensureOwnersBuilt({ ...deps, lockOwner: 'test' });
    expect(await redis.exists(ownersRebuildKeys(prefix).marker)).toBe(1);
    expect(await redis.hget(ownersBucketKey(prefix, listingId), listingId)).toBe('4:1234:7');
    expect(await owners.claim([{ listingId, position: '0:1:0' }])).toEqual(['4:1234:7']);
    // Built once: a second call does not scan again (a later claim is not overridden either way).
    await ensureOwnersBuilt({ ...deps, lockOwner: 'test' });
    expect(await owners.claim([{ listingId, position: '0:1:0' }])).toEqual(['4:1234:7']);
    const keys = await scanAll(redis, `${prefix}*`);
    if (keys.length) await redis.del(...keys);
  });

  it('happy: a claim of many ids spreads over bucket keys of many slots, each answered in place', async () => {
    const redis = await testRedis();
    const prefix = ownPrefix();
    const owners = listingOwners(redis, prefix);
    const ids = Array.from({ length: 300 }, () => randomUUID());
    const claims = ids.map((listingId, i) => ({ listingId, position: `1:${i}:0` }));
    expect(await owners.claim(claims)).toEqual(claims.map((c) => c.position));
    // Half claimed again by another position, mixed with new ids: the owners come back in order.
    const again = [...claims.slice(0, 150).map((c) => ({ ...c, position: '2:0:0' })), ...claims.slice(150)];
    expect(await owners.claim(again)).toEqual(claims.map((c) => c.position));
    const slots = new Set(ids.map((id) => keySlot(ownersBucketKey(prefix, id))));
    expect(slots.size).toBeGreaterThan(250); // tagged by bucket: not one slot for all
    await owners.release(claims);
    expect(await owners.claim(again)).toEqual(again.map((c) => c.position));
    const keys = await scanAll(redis, `${prefix}*`);
    if (keys.length) await redis.del(...keys);
  });

  it("happy: a bucket of the previous release's layout merges into its tagged bucket, a newer claim kept", async () => {
    const redis = await testRedis();
    const prefix = ownPrefix();
    const [a, b] = ['abcde' + randomUUID().slice(5), 'abcde' + randomUUID().slice(5)];
    const old = `${prefix}owners:v2:abcde`; // how the previous release named the bucket
    await redis.hset(old, a, '1:1:0', b, '1:2:0');
    const owners = listingOwners(redis, prefix);
    expect(await owners.claim([{ listingId: b, position: '7:7:7' }])).toEqual(['7:7:7']); // claimed since
    await moveLegacyOwnersBucket(redis, prefix, old);
    await moveLegacyOwnersBucket(redis, prefix, old); // again: nothing left to move
    expect(await redis.exists(old)).toBe(0);
    expect(await redis.hgetall(ownersBucketKey(prefix, a))).toEqual({ [a]: '1:1:0', [b]: '7:7:7' });
    await redis.del(ownersBucketKey(prefix, a));
  });
});
