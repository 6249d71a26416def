// `npm run --silent keys -- create|revoke|list`: the contract's key management CLI (CONTRACT.md,
// "API keys"), a thin shell over common/auth/key-store.ts. Prints exactly one JSON line per result
// on stdout (create: the record plus the plaintext key, shown only here; revoke: {"id","status"};
// list: one record per key, never the plaintext or hash). Errors go to stderr: exit 2 for bad
// usage, 1 for an unknown id or an unreachable Redis.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { keyModes } from '../common/auth/api-key-format.ts';
import { createKeyStore, KeyStoreError } from '../common/auth/key-store.ts';
import { MAX_CUSTOM_RATE_LIMIT, tiers } from '../common/auth/tiers.ts';
import { createRedis, redisReady } from '../common/clients/redis.ts';
import { text } from '../common/domain/text.ts';
import { baseEnvSchema, parseEnv } from '../common/env.ts';

const usage = `usage:
  keys create --mode live|test --tier free|pro|business|enterprise [--name TEXT] [--rate-limit N] [--account ACCOUNT_ID]
  keys revoke <key_id>
  keys list`;

const createOptions = z.object({
  mode: z.enum(keyModes),
  tier: z.enum(tiers),
  name: text().max(200).optional(),
  'rate-limit': z.coerce.number().int().positive().max(MAX_CUSTOM_RATE_LIMIT).optional(),
  account: z
    .string()
    .regex(/^acct_[0-9a-f]{24}$/, 'must be an account id printed by keys create')
    .optional(),
});

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const env = parseEnv(baseEnvSchema.pick({ REDIS_URL: true, REDIS_KEY_PREFIX: true }));
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      mode: { type: 'string' },
      tier: { type: 'string' },
      name: { type: 'string' },
      'rate-limit': { type: 'string' },
      account: { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  if (!command) fail(usage);

  const redis = createRedis(env.REDIS_URL, { name: 'keys-cli' });
  redis.on('error', () => undefined); // reported through the failed command below
  try {
    await redisReady(redis, 5_000).catch(() =>
      fail(`Redis is not reachable at ${env.REDIS_URL}; is the stack running?`, 1),
    );
    const store = createKeyStore(redis, env.REDIS_KEY_PREFIX);
    const print = (value: unknown) => process.stdout.write(JSON.stringify(value) + '\n');

    if (command === 'create') {
      const parsed = createOptions.safeParse(values);
      if (!parsed.success) {
        fail(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n') + '\n' + usage);
      }
      const { mode, tier, name, account } = parsed.data;
      print(
        await store.create({ mode, tier, name, rateLimit: parsed.data['rate-limit'], accountId: account }),
      );
    } else if (command === 'revoke') {
      const id = rest[0] ?? fail(usage);
      const record = await store.revoke(id);
      if (!record) fail(`unknown key id ${id}`, 1);
      print({ id: record.id, status: record.status });
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

await main();
