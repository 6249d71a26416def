// `npm run redis:migrate [-- --dry-run]`: moves the keys the previous release wrote to this
// release's names (migrate.ts), with the services stopped (docs/operations.md, "Upgrading Redis
// keys"). Prints a line per family; `--dry-run` prints each key it would move and moves none.
import { createRedis, isCluster, redisReady } from '../../common/clients/redis.ts';
import { keyFamilies } from '../../common/redis-keys/registry.ts';
import { previousPrefix, readMigrateEnv } from './env.ts';
import { migrateKeys } from './migrate.ts';
import { migrationReport } from './report.ts';

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--dry-run');
if (unknown.length) {
  process.stderr.write(
    `redis:migrate: unknown argument ${unknown.join(' ')}; usage: npm run redis:migrate [-- --dry-run]\n`,
  );
  process.exit(2);
}
const dryRun = args.includes('--dry-run');
const say = (line: string) => process.stdout.write(`redis:migrate: ${line}\n`);

const env = readMigrateEnv();
const redis = createRedis(
  { url: env.REDIS_URL, clusterNodes: env.REDIS_CLUSTER_NODES },
  { name: 'redis-migrate' },
);
try {
  await redisReady(redis);
  const cluster = isCluster(redis);
  const target = {
    redis,
    prefix: env.REDIS_KEY_PREFIX,
    previousPrefix: previousPrefix(env.REDIS_KEY_PREFIX, cluster),
    parts: env.REDIS_GLOBAL_PARTS,
    cluster,
  };
  say(
    `${dryRun ? 'dry run: ' : ''}keys of the previous release under ${target.previousPrefix} to this release's ` +
      `names under ${target.prefix} (${cluster ? 'cluster' : 'one node'}, ${target.parts} global parts)`,
  );
  const counts = await migrateKeys(target, keyFamilies, { dryRun, say });
  for (const line of migrationReport(counts, dryRun)) say(line);
} catch (error) {
  process.stderr.write(`redis:migrate: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  redis.disconnect();
}
