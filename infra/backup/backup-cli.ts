// `npm run backup -- [--base <previous backup>] <dir>`: a consistent backup of a running stack,
// without stopping ingest (CONTRACT.md, "Backups and alerts"; docs/operations.md). With --base the
// ClickHouse part is incremental on that backup (only what changed since is written); Redis and
// the Kafka state are always whole (small). In this order:
//   1. Kafka: topic configurations and every consumer group's committed offsets. First, because a
//      committed offset means "everything before it is stored": the stores copied afterwards hold
//      at least that, and after a restore the stream replays from these offsets, skipping what is
//      stored already (stream/replay-guard.ts) and storing the rest once.
//   2. ClickHouse: BACKUP DATABASE on every server (each shard of the cluster topology).
//   3. Redis: an RDB snapshot of every master (redis-cli --rdb: the server forks, writes go on).
// Progress on stdout; the last stdout line is the manifest (manifest.ts) as one JSON object.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createClickHouse, queryRows } from '../../common/clients/clickhouse.ts';
import { createKafka } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { runCommand } from '../../common/run.ts';
import { clickhouseDirectories } from '../local/clickhouse.mjs';
import { repoRoot } from '../local/settings.mjs';
import { backupChain, type ChainLink, shardCopies } from './chain.ts';
import { backupShard, type ClickHouseTarget, migrationLevel } from './clickhouse-backup.ts';
import { backupDirectory, endpoint, localStackSettings, readBackupEnv, type BackupEnv } from './env.ts';
import { captureKafka } from './kafka-state.ts';
import { MANIFEST_FILE, MANIFEST_FORMAT, type Manifest, writeManifest } from './manifest.ts';
import { clusterMasters, snapshotNode } from './redis-backup.ts';

const say = (message: string) => process.stdout.write(`backup: ${message}\n`);

/** Each ClickHouse server with its local backups directory (File() backups need one). */
function clickhouseTargets(env: BackupEnv): ClickHouseTarget[] {
  const urls = env.CLICKHOUSE_NODES.length ? env.CLICKHOUSE_NODES : [env.CLICKHOUSE_URL];
  const local = clickhouseDirectories(localStackSettings());
  return urls.map((url, i) => {
    const dirs = local.find((candidate) => endpoint(candidate.url) === endpoint(url));
    if (!dirs)
      throw new Error(
        `ClickHouse at ${new URL(url).origin} is not a server of this machine's local stack, whose ` +
          'File() backups this command moves: back up such servers with BACKUP DATABASE … TO S3(…) ' +
          '(docs/operations.md, "Production")',
      );
    return {
      n: i + 1,
      backupsDir: dirs.backups,
      client: createClickHouse({
        url,
        username: env.CLICKHOUSE_USER,
        password: env.CLICKHOUSE_PASSWORD,
        database: 'system',
        requestTimeoutMs: 60 * 60_000,
      }),
    };
  });
}

/** The servers to snapshot: the one of REDIS_URL, or every master of the cluster. */
async function redisNodes(env: BackupEnv): Promise<{ node: string; slots?: string }[]> {
  if (!env.REDIS_CLUSTER_NODES.length) return [{ node: endpoint(env.REDIS_URL) }];
  return clusterMasters(env.REDIS_URL, env.REDIS_CLUSTER_NODES);
}

async function redisVersion(env: BackupEnv, node: string): Promise<string> {
  const url = new URL(env.REDIS_URL);
  url.host = node;
  const client = new Redis(url.toString(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    return /redis_version:(\S+)/.exec(await client.info('server'))?.[1] ?? 'unknown';
  } finally {
    client.disconnect();
  }
}

/**
 * The chain an incremental backup builds on (`--base <dir>`): present whole, of the same database
 * and shards, and taken since shards have names (an incremental backup refers to its base by name).
 */
function baseChain(env: BackupEnv, baseDir: string, shards: number): ChainLink[] {
  const chain = backupChain(baseDir);
  const base = chain[0]!.manifest;
  if (base.database !== env.CLICKHOUSE_DATABASE || base.clickhouse.shards.length !== shards)
    throw new Error(
      `--base ${baseDir} is a backup of database ${base.database} on ${base.clickhouse.shards.length} ` +
        `ClickHouse servers; this stack has ${env.CLICKHOUSE_DATABASE} on ${shards}`,
    );
  if (!chain.every((link) => link.manifest.id && link.manifest.clickhouse.shards.every((s) => s.name)))
    throw new Error(
      `--base ${baseDir}: a backup of its chain was taken before incremental backups existed; take a full backup`,
    );
  return chain;
}

await runCommand('backup', async () => {
  const { values, positionals } = parseArgs({
    options: { base: { type: 'string' } },
    allowPositionals: true,
  });
  const [dir] = positionals;
  if (!dir || positionals.length > 1)
    throw new Error('usage: npm run backup -- [--base <previous backup>] <dir>');
  const env = readBackupEnv();
  const backupDir = backupDirectory(env, dir);
  if (fs.existsSync(path.join(backupDir, MANIFEST_FILE)))
    throw new Error(`${backupDir} already holds a backup; choose a new directory`);
  const targets = clickhouseTargets(env);
  const baseDir = values.base === undefined ? undefined : backupDirectory(env, values.base);
  const chain = baseDir ? baseChain(env, baseDir, targets.length) : [];
  fs.mkdirSync(backupDir, { recursive: true });
  const id = randomUUID();
  const started = Date.now();
  const createdAt = new Date(started).toISOString();
  if (baseDir) say(`incremental on ${baseDir} (taken at ${chain[0]!.manifest.created_at})`);

  const admin = createKafka(env.KAFKA_BROKERS, 'rls-backup', createLogger('error')).admin();
  await admin.connect();
  const kafka = await captureKafka(admin, env.KAFKA_TOPIC_PREFIX).finally(() => admin.disconnect());
  say(
    `kafka: ${kafka.topics.length} topics, offsets of ${Object.keys(kafka.offsets).length} consumer groups`,
  );

  const first = targets[0]!.client;
  const [{ version: clickhouseVersion } = { version: 'unknown' }] = await queryRows<{ version: string }>(
    first,
    'SELECT version() AS version',
  );
  const migration = await migrationLevel(first, env.CLICKHOUSE_DATABASE);
  const shards = [];
  for (const target of targets) {
    const t0 = Date.now();
    const name = `rls-backup-${id}-shard-${target.n}`;
    const base = chain.length ? shardCopies(chain, target.n) : [];
    shards.push(await backupShard(target, env.CLICKHOUSE_DATABASE, backupDir, name, base));
    const shard = shards.at(-1)!;
    say(
      `clickhouse server ${shard.n}: ${shard.tables} tables, ${shard.rows} rows, ${shard.bytes} bytes ` +
        `${base.length ? 'written (incremental) ' : ''}in ${Date.now() - t0} ms`,
    );
  }
  await Promise.all(targets.map((target) => target.client.close()));

  const nodes = await redisNodes(env);
  const snapshots = [];
  for (const [i, { node, slots }] of nodes.entries()) {
    const snapshot = await snapshotNode(env.REDIS_URL, node, backupDir, `node-${i + 1}`);
    snapshots.push({ ...snapshot, ...(slots ? { slots } : {}) });
    say(`redis ${node}: ${snapshot.bytes} bytes`);
  }

  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    id,
    ...(baseDir
      ? { base: { id: chain[0]!.manifest.id!, dir: baseDir, created_at: chain[0]!.manifest.created_at } }
      : {}),
    created_at: createdAt,
    completed_at: new Date().toISOString(),
    duration_ms: Date.now() - started,
    topology: env.REDIS_CLUSTER_NODES.length || targets.length > 1 ? 'cluster' : 'single',
    versions: {
      service: (
        JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }
      ).version,
      clickhouse: clickhouseVersion,
      redis: await redisVersion(env, nodes[0]!.node),
    },
    migration,
    database: env.CLICKHOUSE_DATABASE,
    offsets: kafka.offsets,
    kafka: { topics: kafka.topics },
    clickhouse: { shards },
    redis: { nodes: snapshots },
    bytes: shards.reduce((sum, s) => sum + s.bytes, 0) + snapshots.reduce((sum, s) => sum + s.bytes, 0),
  };
  writeManifest(backupDir, manifest);
  process.stdout.write(`${JSON.stringify(manifest)}\n`);
});
