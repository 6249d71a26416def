// The key families of API keys, accounts, the key audit outbox, usage counters and rate windows,
// for the registry (registry.ts), with how the previous release named them and how
// `npm run redis:migrate` moves them (common/auth/legacy-keys.ts, common/usage/legacy-keys.ts).
// Only tests and scripts import this module, like the registry.
//
// A key's record, rate window and counters live under its key's hash tag (named by its SHA-256),
// its account's families under the account's, and what every account writes into (the key index,
// the audit outbox, the day's dirty sets) in REDIS_GLOBAL_PARTS parts (docs/decisions/0023).
import { lifetime, owned, type KeyFamily } from './family.ts';
import { RATE_WINDOW_MS } from '../auth/access-check.ts';
import { keyAuditDeadKey, keyAuditOutboxKey } from '../auth/key-audit.ts';
import { keyStoreKeys, REVOKED_KEPT_DAYS } from '../auth/key-store.ts';
import { keyAuditLegacy, keyStoreLegacy } from '../auth/legacy-keys.ts';
import { accountRateWindowKey, DAY_TTL_SECONDS, DIRTY_TTL_SECONDS, dirtyKey } from '../usage/keys.ts';
import { MONTH_TTL_SECONDS, usageKeys } from '../usage/keys.ts';
import { usageLegacy } from '../usage/legacy-keys.ts';

const day = '2026-01-01';
const keyRecord = {
  ttl: 'none',
  bound:
    'unbounded: one per key ever made (a revoked key keeps its record, so it is refused as revoked); ' +
    'keys are made by the operator and by admin keys within their daily quota',
};
const rateWindow = lifetime(RATE_WINDOW_MS / 1000);

export const authKeyFamilies: readonly KeyFamily[] = [
  ...owned('common/auth/key-store.ts', [
    {
      name: '{k:<sha256>}:key',
      type: 'hash',
      tag: 'api key',
      build: (p) => keyStoreKeys(p).byHash('ab12'),
      legacy: keyStoreLegacy.record,
      ...keyRecord,
    },
    {
      name: '{key:id:<key>}',
      type: 'string',
      tag: 'single',
      build: (p) => keyStoreKeys(p).hashById('k1'),
      legacy: keyStoreLegacy.idLookup,
      ...keyRecord,
    },
    {
      name: '{g:<n>}:keys',
      type: 'sorted set',
      tag: 'part',
      build: (p) => keyStoreKeys(p).index(3),
      legacy: keyStoreLegacy.index,
      ttl: 'none',
      bound: 'unbounded: a member per key ever made, of every account (spread over the parts by key id)',
    },
    {
      name: '{a:<account>}:account:<account>',
      type: 'hash',
      tag: 'account',
      build: (p) => keyStoreKeys(p).account('a1'),
      legacy: keyStoreLegacy.account,
      ttl: 'none',
      bound: 'one per account (accounts are made by the operator)',
    },
    {
      name: '{a:<account>}:account:<account>:keys',
      type: 'set',
      tag: 'account',
      build: (p) => keyStoreKeys(p).accountKeys('a1'),
      legacy: keyStoreLegacy.accountKeys,
      ttl: 'none',
      bound: `the account's keys, active or revoked in the last ${REVOKED_KEPT_DAYS} d (older ones are pruned on revoke and roll)`,
    },
    {
      name: '{a:<account>}:account:<account>:admins',
      type: 'set',
      tag: 'account',
      build: (p) => keyStoreKeys(p).accountAdmins('a1'),
      legacy: keyStoreLegacy.accountAdmins,
      ttl: 'none',
      bound: "the account's admin keys that are active and not rolled",
    },
  ]),
  ...owned('common/auth/key-audit.ts', [
    {
      name: '{g:<n>}:audit:keys',
      type: 'stream',
      tag: 'part',
      build: (p) => keyAuditOutboxKey(p, 3),
      legacy: keyAuditLegacy.outbox,
      ttl: 'none',
      bound:
        'an event leaves once copied to ClickHouse (right away, and every minute); grows only while ClickHouse is down',
    },
    {
      name: '{g:<n>}:audit:keys:dead',
      type: 'stream',
      tag: 'part',
      build: (p) => keyAuditDeadKey(p, 3),
      legacy: keyAuditLegacy.dead,
      ttl: 'none',
      bound: 'unbounded: events ClickHouse refused for their content, kept for the operator (none expected)',
    },
  ]),
  ...owned('common/usage/keys.ts', [
    {
      name: '{k:<sha256>}:usage:d:<day>',
      type: 'hash',
      tag: 'api key',
      build: (p) => usageKeys(p, 'ab12').day(day),
      legacy: usageLegacy.day,
      ttl: lifetime(DAY_TTL_SECONDS),
      bound: 'the TTL; a field per endpoint called',
    },
    {
      name: '{k:<sha256>}:usage:m:<month>',
      type: 'hash',
      tag: 'api key',
      build: (p) => usageKeys(p, 'ab12').month('2026-01'),
      legacy: usageLegacy.month,
      ttl: lifetime(MONTH_TTL_SECONDS),
      bound: 'the TTL; a field per endpoint called',
    },
    {
      name: '{k:<sha256>}:usage:total',
      type: 'hash',
      tag: 'api key',
      build: (p) => usageKeys(p, 'ab12').total,
      legacy: usageLegacy.total,
      ttl: 'none',
      bound: 'unbounded: one per key ever used (like its record); a field per endpoint called',
    },
    {
      name: '{k:<sha256>}:rl',
      type: 'string',
      tag: 'api key',
      build: (p) => usageKeys(p, 'ab12').rateWindow,
      legacy: usageLegacy.rateWindow,
      ttl: rateWindow,
      bound: 'the TTL: one per key used in the last window',
    },
    {
      name: '{a:<account>}:rla:<account>',
      type: 'string',
      tag: 'account',
      build: (p) => accountRateWindowKey(p, 'a1'),
      legacy: usageLegacy.accountRateWindow,
      ttl: rateWindow,
      bound: 'the TTL: one per account active in the last window',
    },
    {
      name: '{g:<n>}:usage:dirty:<day>',
      type: 'set',
      tag: 'part',
      build: (p) => dirtyKey(p, day, 'ab12', 16),
      legacy: usageLegacy.dirty,
      ttl: lifetime(DIRTY_TTL_SECONDS),
      bound: 'the TTL; a member per key used that day (spread over the parts by key hash)',
    },
  ]),
];
