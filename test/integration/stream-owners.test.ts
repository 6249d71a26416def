// Listing owners (stream/listings/owners.ts): the stream's record of which Kafka position stores each
// listing id, against the real Redis and, for the rebuild, the real ClickHouse. Each test uses its own
// key prefix, so it never touches the owners of the running stack.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { listingOwners } from '../../stream/listings/owners.ts';
import { ensureOwnersBuilt } from '../../stream/listings/owners-rebuild.ts';
import { scanAll } from '../../common/clients/redis.ts';
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
    expect(await redis.exists(`${prefix}owners:v2:built`)).toBe(1);
    expect(await redis.hget(`${prefix}owners:v2:${listingId.slice(0, 5)}`, listingId)).toBe('4:1234:7');
    expect(await owners.claim([{ listingId, position: '0:1:0' }])).toEqual(['4:1234:7']);
    // Built once: a second call does not scan again (a later claim is not overridden either way).
    await ensureOwnersBuilt({ ...deps, lockOwner: 'test' });
    expect(await owners.claim([{ listingId, position: '0:1:0' }])).toEqual(['4:1234:7']);
    const keys = await scanAll(redis, `${prefix}*`);
    if (keys.length) await redis.del(...keys);
  });
});
