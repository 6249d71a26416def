// One module per Redis key family: each key name is spelled in its family's module only (the key
// builder beside its reader and writer), and every process that touches the family goes through
// that module. This scans the services' source for spelled key names (test/support/key-spellings.ts)
// and fails on a name spelled anywhere else, or on a new family that has no home here yet.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keySpellingsIn, keySpellingsUnder } from '../support/key-spellings.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const serviceDirs = ['analytics-api', 'common', 'gateway', 'ingest', 'keys', 'stream'];

/** Family module → the key patterns spelled there (after the prefix; `*` = a substitution). */
const families: Record<string, readonly string[]> = {
  // Shared by two or more processes.
  'common/auth/key-store.ts': [
    'key:h:*',
    'key:id:*',
    'keys',
    'account:*',
    'account:*:keys',
    'account:*:admins',
  ],
  'common/auth/key-audit.ts': ['audit:keys', 'audit:keys:dead'],
  'common/usage/keys.ts': [
    'usage:*:d:*',
    'usage:*:m:*',
    'usage:*:total',
    'rl:*',
    'rl:',
    'rla:*',
    'usage:',
    'usage:dirty:*',
  ],
  'common/batches.ts': ['batch:*', 'batch:*:pending'],
  'common/photos/batch-image-checks.ts': ['batch:*:images'],
  'common/photos/batch-summary.ts': ['batch:*:photos'],
  'common/webhooks/outbox.ts': ['outbox'],
  'common/webhooks/store.ts': ['webhook:*', 'account:*:webhooks'],
  'common/lifecycle/resend-marks.ts': ['lifecycle:resent:*'],
  'common/worker-registry.ts': ['workers', 'workers:details'],
  'common/account-stored-at.ts': ['analytics:stored-at:'],
  // One process each, beside it.
  'stream/jobs/schedule.ts': ['job:*:*'],
  'analytics-api/cache.ts': ['analytics:v2:*'],
  'analytics-api/estimate-quota.ts': ['estimate-cells:*:*:*'],
  'ingest/idempotency.ts': ['idem:*:*:*:*'],
  'ingest/lifecycle/snapshot-store.ts': ['snapshot:*:*:*'],
  'ingest/lifecycle/status-quota.ts': ['status-changes:*:*:*'],
  'ingest/listings/seen-store.ts': ['seen:*', 'claims:*'],
  'ingest/quota.ts': ['quota:*:*:*'],
  'ingest/views/view-guard.ts': ['vg:*:*:*:'],
  'stream/listings/owners.ts': ['owners:v2:', 'owners:rebuilding'],
  'stream/inflight-marks.ts': ['inflight:*:*:*'],
  'stream/webhooks/queue.ts': [
    'webhook:due-accounts',
    'webhook:leases',
    'webhook:due:*',
    'webhook:delivery:*',
  ],
};

const homes = new Map<string, readonly string[]>([
  ...Object.entries(families).flatMap(([file, patterns]) => patterns.map((p) => [p, [file]] as const)),
]);

describe('Redis key family modules', () => {
  const spellings = keySpellingsUnder(root, serviceDirs);

  it('spells every key name in its family module only', () => {
    const misplaced = spellings
      .filter((s) => !homes.get(s.pattern)?.includes(s.file))
      .map((s) => {
        const home = homes.get(s.pattern);
        return home
          ? `${s.file}:${s.line} spells "${s.pattern}": use the builder of ${home.join(' or ')}`
          : `${s.file}:${s.line} spells "${s.pattern}", a key family without a module in this test`;
      });
    expect(misplaced).toEqual([]);
  });

  it('names each pattern in one family, and finds each family where it is listed', () => {
    const listed = Object.values(families).flat();
    expect(listed.length).toBe(new Set(listed).size);
    const missing = [...homes].flatMap(([pattern, files]) =>
      files
        .filter((file) => !spellings.some((s) => s.pattern === pattern && s.file === file))
        .map((file) => `${pattern} in ${file}`),
    );
    expect(missing).toEqual([]);
  });

  it('notices a key name spelled by template, concatenation or Lua (error)', () => {
    const planted = [
      'const a = `${deps.prefix}batch:${batchId}:images`;',
      "const b = env.REDIS_KEY_PREFIX + 'workers';",
      "const c = redisScript(`local k = ARGV[1] .. 'usage:' .. id`);",
      '// a comment may mention `${prefix}batch:${id}` freely',
      'const topic = `${prefix}${name}`;',
    ].join('\n');
    expect(keySpellingsIn('ingest/planted.ts', planted).map((s) => [s.line, s.pattern])).toEqual([
      [1, 'batch:*:images'],
      [2, 'workers'],
      [3, 'lua:usage:'],
    ]);
  });
});
