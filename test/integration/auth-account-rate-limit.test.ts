// The account's rate window beside each key's (common/auth/access-check.ts, tiers.ts): the keys of
// one account share their tier's requests per minute, so more keys do not multiply the rate.
import { describe, expect, it } from 'vitest';
import { tierPolicies } from '../../common/auth/tiers.ts';
import { api, createTestKey } from '../support/api.ts';

const usagePath = '/api/v1/listings/bulk';

describe('per-account rate limit (happy + error)', () => {
  it("error: three keys of a free account share its 120 requests per minute; the next is a 429 naming the account's window", async () => {
    const accountLimit = tierPolicies.free.accountRequestsPerMinute;
    expect(accountLimit).toBe(120);
    const first = await createTestKey({ tier: 'free' });
    const keys = [
      first,
      await createTestKey({ tier: 'free', accountId: first.account_id }),
      await createTestKey({ tier: 'free', accountId: first.account_id }),
    ];
    // 40 per key: each key stays well inside its own 60, the account uses up its 120.
    const statuses: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      const responses = await Promise.all(
        keys.flatMap(({ key }) => Array.from({ length: 10 }, () => api('GET', usagePath, { key }))),
      );
      statuses.push(...responses.map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(accountLimit);

    for (const { key } of keys) {
      const limited = await api('GET', usagePath, { key });
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({
        code: 'rate_limited',
        retriable: true,
        details: { scope: 'account', limit: accountLimit, window_seconds: 60 },
      });
      expect(limited.body.error.message).toMatch(/account's rate limit/);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('ratelimit-limit')).toBe(String(accountLimit));
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    }

    // Another account of the same tier is unaffected.
    const other = await createTestKey({ tier: 'free' });
    const unaffected = await api('GET', usagePath, { key: other.key });
    expect(unaffected.status).toBe(200);
    expect(unaffected.headers.get('ratelimit-limit')).toBe('60');
  });

  it("happy: the headers describe the account's window once it has less room left than the key's", async () => {
    const keys = [await createTestKey({ tier: 'free' })];
    for (let i = 0; i < 2; i += 1)
      keys.push(await createTestKey({ tier: 'free', accountId: keys[0]!.account_id }));
    const burst = (key: string, n: number) =>
      Promise.all(Array.from({ length: n }, () => api('GET', usagePath, { key })));
    await burst(keys[0]!.key, 50);
    await burst(keys[1]!.key, 30);
    // The second key: 29 left of its own 60; the account: 39 of 120. The key's window is tighter.
    const keyBound = await api('GET', usagePath, { key: keys[1]!.key });
    expect(keyBound.headers.get('ratelimit-limit')).toBe('60');
    expect(keyBound.headers.get('ratelimit-remaining')).toBe('29');
    await burst(keys[2]!.key, 30);
    // The second key: 28 left; the account: 120 - 112 = 8. The account's window is tighter.
    const accountBound = await api('GET', usagePath, { key: keys[1]!.key });
    expect(accountBound.status).toBe(200);
    expect(accountBound.headers.get('ratelimit-limit')).toBe('120');
    expect(accountBound.headers.get('ratelimit-remaining')).toBe('8');
    // GET /listings/bulk reports the same window.
    expect(accountBound.body.rate_limit).toMatchObject({ limit: 120, remaining: 8 });
  });
});
