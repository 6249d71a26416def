// `npm run --silent keys -- create|revoke|list`: the contract's key management CLI (CONTRACT.md,
// "API keys"), a thin shell over common/auth/key-store.ts. Prints exactly one JSON line per result
// on stdout (create: the record plus the plaintext key, shown only here; revoke: {"id","status"};
// list: one record per key, never the plaintext or hash). Errors go to stderr: exit 2 for bad
// usage, 1 for an unknown id or an unreachable Redis.
// create and revoke are recorded as done by `user@host` (key_audit_events, docs/auth.md): the event
// is queued in Redis with the change, then copied to ClickHouse before the CLI exits; when
// ClickHouse cannot be reached the CLI still succeeds, warns on stderr, and the stream worker
// copies the event within a minute.
import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { keyModes } from '../common/auth/api-key-format.ts';
import type { KeyActor } from '../common/auth/key-audit.ts';
import { flushKeyAudit } from '../common/auth/key-audit-flush.ts';
import { createKeyStore, KeyStoreError } from '../common/auth/key-store.ts';
import { keyNameSchema } from '../common/auth/key-name.ts';
import { roles } from '../common/auth/roles.ts';
import { MAX_CUSTOM_RATE_LIMIT, tiers } from '../common/auth/tiers.ts';
import { createClickHouse } from '../common/clients/clickhouse.ts';
import { createRedis, redisReady } from '../common/clients/redis.ts';
import { baseEnvSchema, parseEnv } from '../common/env.ts';
import { redactUrl } from './redact.ts';
import { createLogger, errorFields } from '../common/logger.ts';

const usage = `usage:
  keys create --mode live|test --tier free|pro|business|enterprise [--name TEXT] [--role standard|portal|admin] [--rate-limit N] [--account ACCOUNT_ID]
  keys revoke <key_id>
  keys list`;

const createOptions = z.object({
  mode: z.enum(keyModes),
  tier: z.enum(tiers),
  role: z.enum(roles).optional(),
  name: keyNameSchema.optional(),
  'rate-limit': z.coerce.number().int().positive().max(MAX_CUSTOM_RATE_LIMIT).optional(),
  account: z
    .string()
    .regex(/^acct_[0-9a-f]{24}$/, 'must be an account id printed by keys create')
    .optional(),
});

// Redis for the keys; ClickHouse for the audit events of create and revoke.
// USER names the operator in the audit events when the system has no passwd entry for the process.
const cliEnvSchema = baseEnvSchema
  .pick({
    REDIS_URL: true,
    REDIS_CLUSTER_NODES: true,
    REDIS_KEY_PREFIX: true,
    REDIS_GLOBAL_PARTS: true,
    CLICKHOUSE_URL: true,
    CLICKHOUSE_USER: true,
    CLICKHOUSE_PASSWORD: true,
    CLICKHOUSE_DATABASE: true,
  })
  .extend({ USER: z.string().default('unknown') });
type CliEnv = z.infer<typeof cliEnvSchema>;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const env = parseEnv(cliEnvSchema);
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      mode: { type: 'string' },
      tier: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      'rate-limit': { type: 'string' },
      account: { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  if (!command) fail(usage);

  const redis = createRedis(
    { url: env.REDIS_URL, clusterNodes: env.REDIS_CLUSTER_NODES },
    { name: 'keys-cli' },
  );
  redis.on('error', () => undefined); // reported through the failed command below
  try {
    await redisReady(redis, 5_000).catch(() =>
      fail(`Redis is not reachable at ${redactUrl(env.REDIS_URL)}; is the stack running?`, 1),
    );
    const store = createKeyStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);
    const print = (value: unknown) => process.stdout.write(JSON.stringify(value) + '\n');

    if (command === 'create') {
      const parsed = createOptions.safeParse(values);
      if (!parsed.success) {
        fail(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n') + '\n' + usage);
      }
      const { mode, tier, name, role, account } = parsed.data;
      const input = { mode, tier, name, role, rateLimit: parsed.data['rate-limit'], accountId: account };
      print(await store.create(input, operatorActor(env)));
      await flushAudit(env, redis);
    } else if (command === 'revoke') {
      const id = rest[0] ?? fail(usage);
      const record = await store.revoke(id, { actor: operatorActor(env) });
      if (!record) fail(`unknown key id ${id}`, 1);
      print({ id: record.id, status: record.status });
      await flushAudit(env, redis);
    } else if (command === 'list') {
      for (const record of await store.list()) print(record);
    } else {
      fail(usage);
    }
  } catch (error) {
    if (error instanceof KeyStoreError) fail(error.message, 2);
    throw error;
  } finally {
    redis.disconnect();
  }
}

function operatorActor(env: CliEnv): KeyActor {
  let user = env.USER;
  try {
    user = userInfo().username;
  } catch {
    /* no passwd entry (some containers): keep $USER */
  }
  return { source: 'cli', operator: `${user}@${hostname()}` };
}

/** Copies the queued audit events to ClickHouse (5 s at most); a failure only warns. */
async function flushAudit(env: CliEnv, redis: Redis): Promise<void> {
  const clickhouse = createClickHouse({
    url: env.CLICKHOUSE_URL,
    username: env.CLICKHOUSE_USER,
    password: env.CLICKHOUSE_PASSWORD,
    database: env.CLICKHOUSE_DATABASE,
  });
  const stderr = (line: string) => process.stderr.write(`${line}\n`);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      flushKeyAudit({
        redis,
        clickhouse,
        prefix: env.REDIS_KEY_PREFIX,
        parts: env.REDIS_GLOBAL_PARTS,
        logger: createLogger('warn', { service: 'keys-cli' }, stderr),
      }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5_000);
      }),
    ]);
  } catch (error) {
    stderr(
      `warning: the audit event is queued in Redis but not yet in ClickHouse (${errorFields(error).error}); ` +
        'a stream worker copies it within a minute',
    );
  } finally {
    clearTimeout(timer);
    await clickhouse.close().catch(() => undefined);
  }
}

await main();
