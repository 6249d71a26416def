// Where the auth and usage keys live on a Redis Cluster (common/redis-keys/tags.ts): what the access
// check touches in one script shares the key's slot, the account's families share the account's,
// and the families every account writes into are spread over REDIS_GLOBAL_PARTS parts.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyAuditOutboxKey } from '../../common/auth/key-audit.ts';
import { keyStoreKeys } from '../../common/auth/key-store.ts';
import { keySlot } from '../../common/redis-keys/slot.ts';
import { partOf } from '../../common/redis-keys/tags.ts';
import { accountRateWindowKey, dirtyKey, usageKeys } from '../../common/usage/keys.ts';

const prefix = 'rls:';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const slotsOf = (keys: string[]) => new Set(keys.map(keySlot));

/** Every key the access check's script touches for one key (access-check.ts). */
function accessKeys(hash: string): string[] {
  const usage = usageKeys(prefix, hash);
  return [
    keyStoreKeys(prefix).byHash(hash),
    usage.rateWindow,
    usage.day('2026-01-01'),
    usage.month('2026-01'),
  ];
}

describe('auth and usage key slots', () => {
  it("puts a key's record, rate window and counters in one slot, another key's in another", () => {
    const [a, b] = [sha('key a'), sha('key b')];
    expect(slotsOf([...accessKeys(a), usageKeys(prefix, a).total]).size).toBe(1);
    expect(slotsOf(accessKeys(b)).size).toBe(1);
    expect(keySlot(accessKeys(a)[0]!)).not.toBe(keySlot(accessKeys(b)[0]!));
  });

  it("puts an account's record, key set, admin set and rate window in one slot, another account's in another", () => {
    const ofAccount = (account: string) => {
      const k = keyStoreKeys(prefix);
      return [
        k.account(account),
        k.accountKeys(account),
        k.accountAdmins(account),
        accountRateWindowKey(prefix, account),
      ];
    };
    expect(slotsOf(ofAccount('acct_1')).size).toBe(1);
    expect(slotsOf(ofAccount('acct_2')).size).toBe(1);
    expect(keySlot(ofAccount('acct_1')[0]!)).not.toBe(keySlot(ofAccount('acct_2')[0]!));
  });

  it('spreads the key index, the audit outbox and the dirty sets over the parts', () => {
    const parts = 16;
    const ids = Array.from({ length: 200 }, (_, i) => `key_${sha(String(i)).slice(0, 24)}`);
    const index = new Set(ids.map((id) => keyStoreKeys(prefix).index(partOf(id, parts))));
    const outbox = new Set(ids.map((id) => keyAuditOutboxKey(prefix, partOf(`acct_${id}`, parts))));
    const dirty = new Set(ids.map((id) => dirtyKey(prefix, '2026-01-01', sha(id), parts)));
    for (const names of [index, outbox, dirty]) {
      expect(names.size).toBe(parts);
      expect(slotsOf([...names]).size).toBe(parts);
    }
  });

  it('gives each id lookup a tag of its own', () => {
    const lookups = ['key_1', 'key_2', 'key_3', 'key_4'].map((id) => keyStoreKeys(prefix).hashById(id));
    expect(slotsOf(lookups).size).toBe(4);
  });
});
