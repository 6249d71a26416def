// `npm run restore -- <dir>`: brings the local stack's stores back from a backup of
// `npm run backup` (CONTRACT.md, "Backups and alerts"; docs/operations.md). Runs on a stopped stack
// whose ClickHouse and Redis data are gone (a fresh RLS_STATE_DIR, or their directories deleted):
//   1. Redis: the snapshot goes into the empty data directory before Redis starts.
//   2. ClickHouse: RESTORE DATABASE on every server (each shard its own part).
//   3. Kafka: topics that are missing are created with their backed-up configuration, and every
//      consumer group's committed offsets are set back to the backed-up ones, so the stream
//      replays what was acknowledged after the backup (and stores each listing once).
// It starts the components it needs and stops them again; the next `npm start` serves the data.
// The last stdout line is a JSON summary.
import path from 'node:path';
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import { createKafka } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { runCommand } from '../../common/run.ts';
import { clickhouseDirectories, clickhouseNodes, startClickHouse } from '../local/clickhouse.mjs';
import { startKafka } from '../local/kafka.mjs';
import { pingRedis, redisDirectories, startRedis } from '../local/redis.mjs';
import { stopComponents } from '../local/stack.mjs';
import { restoreShard } from './clickhouse-backup.ts';
import { backupDirectory, localStackSettings, readBackupEnv } from './env.ts';
import { recreateTopics, restoreOffsets } from './kafka-state.ts';
import { readManifest } from './manifest.ts';
import { placeSnapshot } from './redis-backup.ts';

const say = (message: string) => process.stdout.write(`restore: ${message}\n`);

await runCommand('restore', async () => {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: npm run restore -- <dir>');
  const env = readBackupEnv();
  const backupDir = backupDirectory(env, dir);
  const manifest = readManifest(backupDir);
  const settings = localStackSettings();
  const servers = clickhouseNodes(settings).length;
  if (manifest.clickhouse.shards.length !== servers)
    throw new Error(
      `the backup holds ${manifest.clickhouse.shards.length} ClickHouse shards, this stack has ${servers} ` +
        '(restore into the topology that was backed up: RLS_TOPOLOGY, CLICKHOUSE_SHARDS)',
    );
  const redisNodes = redisDirectories(settings);
  if (manifest.redis.nodes.length !== 1 || redisNodes.length !== 1)
    throw new Error(
      'this command restores a single Redis server; a Redis Cluster is restored node by node ' +
        '(docs/operations.md, "Restoring a cluster")',
    );
  for (const { port } of redisNodes)
    if ((await pingRedis(port)) !== null)
      throw new Error(`Redis on port ${port} is running: stop the stack first (restore needs it stopped)`);

  const started: Record<string, number[]> = {};
  const t0 = Date.now();
  placeSnapshot(path.join(backupDir, manifest.redis.nodes[0]!.path), redisNodes[0]!.dir);
  try {
    started.redis = (await startRedis(settings)).startedNodes;
    say(
      `redis: snapshot of ${manifest.redis.nodes[0]!.node} loaded (${manifest.redis.nodes[0]!.bytes} bytes)`,
    );

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
        const restored = await restoreShard(target, manifest.database, backupDir, shard);
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
      backup_created_at: manifest.created_at,
      migration: manifest.migration,
      database: manifest.database,
      duration_ms: Date.now() - t0,
    })}\n`,
  );
});
