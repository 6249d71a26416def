// The local stack's Redis persists through its append-only file alone (infra/local/redis.mjs): fsync
// once a second, no RDB snapshots, and rewrites without LZF compression (a third of a rewrite's CPU
// for 1 % of its size: docs/decisions/0014-redis-rewrite-without-compression.md).
import { describe, expect, it } from 'vitest';
import { testRedis } from '../support/api.ts';

describe('Redis persistence of the local stack (happy)', () => {
  it('keeps an append-only file, fsynced every second, rewritten uncompressed, and no snapshots', async () => {
    const redis = await testRedis();
    const setting = async (name: string) => ((await redis.config('GET', name)) as [string, string])[1];
    expect(await setting('appendonly')).toBe('yes');
    expect(await setting('appendfsync')).toBe('everysec');
    expect(await setting('save')).toBe('');
    expect(await setting('rdbcompression')).toBe('no');
  });
});
