// `npm run restore -- <dir>`: brings the local stack's stores back from a backup of
// `npm run backup` (CONTRACT.md, "Backups and alerts"; docs/operations.md). Runs on a stopped stack
// whose ClickHouse and Redis data are gone (a fresh RLS_STATE_DIR, or their directories deleted):
//   1. Redis: the snapshot goes into the empty data directory before Redis starts; into a Redis
//      Cluster every key of every snapshot is copied instead (redis-restore.ts).
//   2. ClickHouse: RESTORE DATABASE on every server (each shard its own part); an incremental
//      backup needs the backups it rests on (chain.ts), which ClickHouse reads through it.
//   3. Kafka: topics that are missing are created with their backed-up configuration, and every
//      consumer group's committed offsets are set back to the backed-up ones, so the stream
//      replays what was acknowledged after the backup (and stores each listing once).
// It starts the components it needs and stops them again; the next `npm start` serves the data.
// The last stdout line is a JSON summary.
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import { createKafka } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { runCommand } from '../../common/run.ts';
import { clickhouseDirectories, clickhouseNodes, startClickHouse } from '../local/clickhouse.mjs';
import { startKafka } from '../local/kafka.mjs';
import { stopComponents } from '../local/stack.mjs';
import { backupChain, shardCopies } from './chain.ts';
import { restoreShard } from './clickhouse-backup.ts';
import { backupDirectory, localStackSettings, readBackupEnv } from './env.ts';
import { recreateTopics, restoreOffsets } from './kafka-state.ts';
import { restoreRedis } from './redis-restore.ts';

const say = (message: string) => process.stdout.write(`restore: ${message}\n`);

await runCommand('restore', async () => {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: npm run restore -- <dir>');
  const env = readBackupEnv();
  const backupDir = backupDirectory(env, dir);
  // The backup and, for an incremental one, every base under it: all must be there.
  const chain = backupChain(backupDir);
  const manifest = chain[0]!.manifest;
  if (chain.length > 1)
    say(
      `incremental: ClickHouse from a chain of ${chain.length} backups (${chain.map((l) => l.dir).join(' <- ')})`,
    );
  const settings = localStackSettings();
  const servers = clickhouseNodes(settings).length;
  if (manifest.clickhouse.shards.length !== servers)
    throw new Error(
      `the backup holds ${manifest.clickhouse.shards.length} ClickHouse shards, this stack has ${servers} ` +
        '(restore into the topology that was backed up: RLS_TOPOLOGY, CLICKHOUSE_SHARDS)',
    );

  const started: Record<string, number[]> = {};
  const t0 = Date.now();
  try {
    started.redis = await restoreRedis(settings, manifest.redis.nodes, backupDir, say);

    const clickhouse = await startClickHouse(settings);
    started.clickhouse = clickhouse.startedNodes;
    const directories = clickhouseDirectories(settings);
    for (const shard of manifest.clickhouse.shards) {
      const client = createClickHouse({
        url: directories[shard.n - 1]!.url,
        username: env.CLICKHOUSE_USER,
        password: env.CLICKHOUSE_PASSWORD,
        database: 'system',
        requestTimeoutMs: 60 * 60_000,
      });
      try {
        const target = { n: shard.n, client, backupsDir: directories[shard.n - 1]!.backups };
        const restored = await restoreShard(target, manifest.database, shardCopies(chain, shard.n));
        say(`clickhouse server ${shard.n}: ${restored.tables} tables, ${restored.rows} rows`);
        if (restored.tables !== shard.tables)
          throw new Error(
            `ClickHouse server ${shard.n}: ${restored.tables} tables restored, ${shard.tables} backed up`,
          );
      } finally {
        await client.close();
      }
    }

    started.kafka = (await startKafka(settings)).startedNodes;
    const admin = createKafka(env.KAFKA_BROKERS, 'rls-restore', createLogger('error')).admin();
    await admin.connect();
    try {
      const brokers = (await admin.describeCluster()).brokers.length;
      const created = await recreateTopics(admin, manifest.kafka.topics, brokers);
      if (created.length) say(`kafka: created topics ${created.join(', ')}`);
      const partitions = await restoreOffsets(admin, manifest.offsets);
      say(
        `kafka: offsets of ${Object.keys(manifest.offsets).length} consumer groups set (${partitions} partitions)`,
      );
    } finally {
      await admin.disconnect();
    }
  } finally {
    await stopComponents(settings, started);
  }
  process.stdout.write(
    `${JSON.stringify({
      restored_from: backupDir,
      ...(chain.length > 1 ? { bases: chain.slice(1).map((link) => link.dir) } : {}),
      backup_created_at: manifest.created_at,
      migration: manifest.migration,
      database: manifest.database,
      duration_ms: Date.now() - t0,
    })}\n`,
  );
});
