// The restore drill (docs/operations.md, "Backup and restore"): ingest under load with random
// accounts, `npm run backup` during the load, one more request, an incremental backup on the first
// one (`--base`), keep ingesting, stop the stack, delete ClickHouse's and Redis'
// data, `npm run restore` from the incremental backup, start again. Then every acknowledged listing
// is stored exactly once (those of the full backup and of the incremental one come back from the
// chain, those acknowledged after it from Kafka, replayed from the backed-up offsets), the keys
// authenticate with their tier and limits, a webhook registered before the backups delivers a batch
// of after the restore, signed with its secret as before, batch statuses and idempotent retries
// answer as before, and the analytics answer as before the wipe.
//
// The drill's services run in a namespace of their own (topics, database, key prefix), so the
// backup and the replay are the drill's alone; the wipe still deletes the whole data directories,
// and the suite's own database is migrated again afterwards, as `npm start` would.
import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { createKafka } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { directoryBytes } from '../../infra/backup/files.ts';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { createTopics } from '../../infra/kafka/create-topics.ts';
import { clickhouseDirectories, stopClickHouse } from '../../infra/local/clickhouse.mjs';
import { stopKafka } from '../../infra/local/kafka.mjs';
import { redisDirectories, stopRedis } from '../../infra/local/redis.mjs';
import { spawnService, stopChildren, waitForHealth } from '../../infra/local/services.mjs';
import { repoRoot } from '../../infra/local/settings.mjs';
import { namespaceEnv, startStack } from '../../infra/local/stack.mjs';
import { startReceiver } from '../support/webhooks-receiver.ts';
import { stackSettings as settings } from '../support/fault-stack-settings.ts';

const run = promisify(execFile);
const suiteEnv = { ...process.env };
const ns = `drill${randomUUID().replace(/-/g, '').slice(0, 8)}`;
const drillEnv = namespaceEnv({ RLS_NAMESPACE: ns });
// The test helpers read their database and key prefix from the environment when first imported.
Object.assign(process.env, drillEnv);
const { createTestKey, env, eventually, sampleListing, testClickHouse } = await import('../support/api.ts');
const { expectExactlyOnce } = await import('../support/fault-stream.ts');

const port = settings.port - 20; // beside the suite's API (PORT) and its workers' metrics (PORT + 10, + 11)
const drillBase = `http://127.0.0.1:${port}`;
const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-drill-'));
/** What `npm run backup|restore` need to find this stack: its ports and state directory. */
const cliEnv = { ...process.env, RLS_PORT_BASE: String(settings.portBase), RLS_STATE_DIR: settings.stateDir };

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

async function call(
  method: string,
  url: string,
  key: string,
  body?: unknown,
  idem?: string,
): Promise<Answer> {
  const headers: Record<string, string> = { 'X-API-Key': key };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idem) headers['Idempotency-Key'] = idem;
  const response = await fetch(`${drillBase}${url}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

let children: ChildProcess[] = [];
function startServices(): Promise<void> {
  const serviceEnv = {
    ...process.env,
    PORT: String(port),
    STREAM_METRICS_PORT: '0',
    IMAGES_METRICS_PORT: '0',
    LOG_LEVEL: 'error',
    ANALYTICS_CACHE_TTL_SECONDS: '1',
  };
  children = [
    spawnService('gateway', serviceEnv),
    spawnService('stream', serviceEnv),
    spawnService('images', serviceEnv),
  ];
  return waitForHealth(port, { children, timeoutMs: 120_000 });
}

async function npmRun(script: string, ...args: string[]): Promise<{ stdout: string; ms: number }> {
  const t0 = Date.now();
  try {
    const { stdout } = await run('npm', ['run', '--silent', script, '--', ...args], {
      cwd: repoRoot,
      env: cliEnv,
      timeout: 180_000,
    });
    return { stdout, ms: Date.now() - t0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`npm run ${script} failed: ${failed.stderr || failed.message}\n${failed.stdout ?? ''}`);
  }
}

interface Batch {
  key: string;
  batchId: string;
  ids: string[];
  /** Set for the requests retried after the restore with the same Idempotency-Key. */
  idem?: { key: string; body: unknown; answer: unknown };
}

const receiver = await startReceiver();

afterAll(async () => {
  await receiver.close();
  await stopChildren(children);
  fs.rmSync(backupDir, { recursive: true, force: true });
  // The drill's namespace goes: its topics and its database (each run has a new one).
  const admin = createKafka(env.KAFKA_BROKERS, 'drill', createLogger('error')).admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(env.KAFKA_TOPIC_PREFIX));
  if (topics.length) await admin.deleteTopics({ topics });
  await admin.disconnect();
  await testClickHouse().command({ query: `DROP DATABASE IF EXISTS ${env.CLICKHOUSE_DATABASE}` });
});

describe('restore drill (fault)', () => {
  it('backs up under load, restores into wiped stores, and loses nothing acknowledged', async () => {
    expect(process.env.REDIS_URL).toBe(`redis://127.0.0.1:${settings.redis.port}`);
    await migrate({
      url: env.CLICKHOUSE_URL,
      username: 'default',
      password: '',
      database: env.CLICKHOUSE_DATABASE,
    });
    await createTopics(
      createKafka(env.KAFKA_BROKERS, 'drill', createLogger('error')),
      env.KAFKA_TOPIC_PREFIX,
      {
        replicationFactor: 1,
      },
    );
    await startServices();

    // Random accounts of different tiers; the enterprise ones carry the load.
    const loaders = await Promise.all(
      [1, 2, 3].map(() => createTestKey({ tier: 'enterprise', rateLimit: 100_000 })),
    );
    const others = await Promise.all([createTestKey({ tier: 'business' }), createTestKey({ tier: 'pro' })]);
    // A webhook registered before the backups: after the restore it must deliver, signed as before.
    const hooked = others[0]!;
    const registered = await call('POST', '/api/v1/webhooks/register', hooked.key, { url: receiver.url });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const hook = registered.body as { id: string; secret: string };
    /** The signed delivery of `batchId`'s completion, verified with the secret given at registration. */
    const deliveryOf = (batchId: string) =>
      eventually(
        async () => {
          for (const delivery of receiver.received) {
            const event = new Webhook(hook.secret).verify(delivery.body, {
              'webhook-id': String(delivery.headers['webhook-id']),
              'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
              'webhook-signature': String(delivery.headers['webhook-signature']),
            }) as { type: string; data: { batch_id: string; status: string } };
            if (event.data.batch_id === batchId) return event;
          }
          return undefined;
        },
        60_000,
        `the webhook delivery of batch ${batchId}`,
      );
    const limits = new Map<string, string | null>();
    for (const k of [...loaders, ...others]) {
      const answer = await call(
        'GET',
        '/api/v1/listings/batches/00000000-0000-4000-8000-000000000000',
        k.key,
      );
      limits.set(k.key, answer.headers.get('RateLimit-Limit'));
    }

    const batches: Batch[] = [];
    let sent = 0;
    async function send(key: string, idempotent: boolean): Promise<Batch> {
      const listings = Array.from({ length: 50 }, () =>
        sampleListing({ price: 400_000 + Math.round(Math.random() * 1_000_000), bedrooms: 1 + (sent++ % 4) }),
      );
      const idem = idempotent ? randomUUID() : undefined;
      const answer = await call('POST', '/api/v1/listings/bulk', key, { listings }, idem);
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      const batch: Batch = {
        key,
        batchId: answer.body.batch_id,
        ids: answer.body.results.map((r: { listing_id: string }) => r.listing_id),
        ...(idem ? { idem: { key: idem, body: { listings }, answer: answer.body } } : {}),
      };
      batches.push(batch);
      return batch;
    }
    /** Each loader sends requests one after another, `pauseMs` apart, until `until()`. */
    async function load(until: () => boolean, pauseMs = 0): Promise<void> {
      await Promise.all(
        loaders.map(async (k, i) => {
          for (let n = 0; !until(); n++) {
            await send(k.key, (n + i) % 5 === 0);
            if (pauseMs) await sleep(pauseMs);
          }
        }),
      );
    }

    const withManifest = (backup: { stdout: string; ms: number }) => ({
      ...backup,
      manifest: JSON.parse(backup.stdout.trim().split('\n').at(-1)!),
    });
    const clickhouseBytes = (manifest: { clickhouse: { shards: { bytes: number }[] } }) =>
      manifest.clickhouse.shards.reduce((sum, shard) => sum + shard.bytes, 0);

    // Merges of the drill's tables are stopped until the wipe: the test's parts are tiny, and
    // ClickHouse merges tiny parts at once into new ones, which an incremental backup must hold
    // whole again (production's large parts stay put for long). So every insert keeps its part,
    // and the incremental backup must hold only the parts of the inserts after the full one.
    const tables = await testClickHouse().query({
      query: `SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree'`,
      query_params: { db: env.CLICKHOUSE_DATABASE },
      format: 'JSONEachRow',
    });
    for (const { name } of await tables.json<{ name: string }>())
      await testClickHouse().command({ query: `SYSTEM STOP MERGES ${env.CLICKHOUSE_DATABASE}.\`${name}\`` });
    // 30 s of load before the backup: an incremental backup holds the parts of what came after the
    // full one's ClickHouse part (the load during its Redis snapshot, ~5 s, and one request).
    const loadUntil = Date.now() + 30_000;
    await load(() => Date.now() > loadUntil, 1_000); // ~4,000 listings before the backup
    await send(hooked.key, false);
    const beforeBackup = [...batches];
    const fullDir = path.join(backupDir, 'full');
    let backingUp = true;
    const [fullBackup] = await Promise.all([
      npmRun('backup', fullDir).finally(() => (backingUp = false)),
      load(() => !backingUp, 500), // paced: the drill measures the backup, not the machine's peak
    ]);
    const full = withManifest(fullBackup);
    let between = 0;
    await load(() => ++between > 1); // one request (50 listings) between the full and the incremental backup
    const beforeIncremental = [...batches];
    await expectExactlyOnce(beforeIncremental.flatMap((b) => b.ids));
    const incrementalDir = path.join(backupDir, 'incremental');
    const incremental = withManifest(await npmRun('backup', '--base', fullDir, incrementalDir));
    expect(incremental.manifest.base, 'the incremental backup names its base').toMatchObject({
      id: full.manifest.id,
      dir: fullDir,
    });
    expect(incremental.stdout, 'the backup says it is incremental').toContain(`incremental on ${fullDir}`);
    const parts = (dir: string) =>
      fs
        .readdirSync(path.join(dir, 'clickhouse', 'shard-1', 'data', env.CLICKHOUSE_DATABASE), {
          recursive: true,
        })
        .map(String)
        .filter((entry) => entry.split(path.sep).length === 2);
    const fullParts = new Set(parts(fullDir));
    expect(
      parts(incrementalDir).filter((part) => fullParts.has(part)),
      'no part of the full backup is in the incremental one again',
    ).toEqual([]);
    // The parts' files: each backup's index (`.backup`) lists every file of its chain, and with
    // merges stopped the drill's thousands of tiny parts make the index as big as the data.
    const dataBytes = (dir: string) => directoryBytes(path.join(dir, 'clickhouse', 'shard-1', 'data'));
    process.stdout.write(
      `incremental backup: ${parts(incrementalDir).length} parts, ${dataBytes(incrementalDir)} bytes of parts; ` +
        `full backup: ${fullParts.size} parts, ${dataBytes(fullDir)} bytes of parts\n`,
    );
    expect(
      dataBytes(incrementalDir),
      'the incremental backup holds only what changed: much less than the full one',
    ).toBeLessThan(dataBytes(fullDir) / 2);
    let after = 0;
    await load(() => ++after > 24); // and as many after it
    expect(Object.keys(incremental.manifest.offsets).length, 'consumer groups backed up').toBeGreaterThan(0);

    const ids = batches.flatMap((b) => b.ids);
    const afterIncremental = batches.length - beforeIncremental.length;
    await expectExactlyOnce(ids);
    const statuses = new Map<string, unknown>();
    for (const b of beforeIncremental) {
      const status = await eventually(
        async () => {
          const answer = await call('GET', `/api/v1/listings/batches/${b.batchId}`, b.key);
          return answer.body?.status === 'completed' ? answer.body : undefined;
        },
        60_000,
        `batch ${b.batchId} completed`,
      );
      statuses.set(b.batchId, status);
    }
    const hookedBefore = beforeBackup.find((b) => b.key === hooked.key)!;
    expect((await deliveryOf(hookedBefore.batchId)).type).toBe('listings.batch.completed');
    const pricingUrl = '/api/v1/analytics/pricing?city=dar_es_salaam&type=apartment';
    const pricingBefore = await call('GET', pricingUrl, loaders[0]!.key);
    expect(pricingBefore.status).toBe(200);

    // Everything stops; ClickHouse's and Redis' data are deleted.
    await stopChildren(children);
    await Promise.all([stopKafka(settings), stopClickHouse(settings), stopRedis(settings)]);
    for (const dir of clickhouseDirectories(settings)) fs.rmSync(dir.data, { recursive: true, force: true });
    for (const { dir } of redisDirectories(settings))
      for (const name of ['appendonlydir', 'dump.rdb'])
        fs.rmSync(path.join(dir, name), { recursive: true, force: true });

    const restore = await npmRun('restore', incrementalDir);
    expect(restore.stdout, 'ClickHouse comes back from the chain').toContain('chain of 2 backups');
    // As `npm start`: the stack, the suite's database migrated again (it was not in the drill's
    // backup), the drill's database already at the backed-up migration.
    await startStack(settings, suiteEnv);
    const migrated = await migrate({
      url: env.CLICKHOUSE_URL,
      username: 'default',
      password: '',
      database: env.CLICKHOUSE_DATABASE,
    });
    expect(migrated, 'migrations applied to the restored database').toEqual([]);
    await startServices();

    await expectExactlyOnce(ids, 150_000);
    for (const k of [...loaders, ...others]) {
      const answer = await call(
        'GET',
        '/api/v1/listings/batches/00000000-0000-4000-8000-000000000000',
        k.key,
      );
      expect(answer.status, 'a restored key authenticates (404: unknown batch)').toBe(404);
      expect(answer.headers.get('RateLimit-Limit'), 'its tier and limit').toBe(limits.get(k.key));
    }
    for (const b of beforeIncremental) {
      const answer = await call('GET', `/api/v1/listings/batches/${b.batchId}`, b.key);
      expect(answer.body, `batch ${b.batchId}`).toEqual(statuses.get(b.batchId));
    }
    const retried = beforeIncremental.filter((b) => b.idem);
    expect(retried.length).toBeGreaterThan(0);
    for (const b of retried) {
      const answer = await call('POST', '/api/v1/listings/bulk', b.key, b.idem!.body, b.idem!.key);
      expect(answer.body, 'an idempotent retry answers as before').toEqual(b.idem!.answer);
    }
    await expectExactlyOnce(ids);
    const pricingAfter = await eventually(
      async () => {
        const answer = await call('GET', pricingUrl, loaders[0]!.key);
        return JSON.stringify(answer.body) === JSON.stringify(pricingBefore.body) ? answer : undefined;
      },
      30_000,
      'the analytics to answer as before the wipe',
    ).catch(async (error: Error) => {
      const last = await call('GET', pricingUrl, loaders[0]!.key);
      expect(last.body, error.message).toEqual(pricingBefore.body);
      throw error;
    });
    expect(pricingAfter.status).toBe(200);
    // The webhook registered before the backups delivers a batch of after the restore, signed with
    // the secret it was registered with.
    const hookedAfter = await send(hooked.key, false);
    const delivered = await deliveryOf(hookedAfter.batchId);
    expect(delivered).toMatchObject({
      type: 'listings.batch.completed',
      data: { batch_id: hookedAfter.batchId, status: 'completed' },
    });
    await expectExactlyOnce([...ids, ...hookedAfter.ids]);

    const during = (from: Batch[], to: Batch[]) => to.length - from.length;
    process.stdout.write(
      `restore drill: ${ids.length} listings acknowledged (${beforeBackup.length} batches before the full ` +
        `backup, ${during(beforeBackup, beforeIncremental)} during it and before the incremental one, ` +
        `${afterIncremental} during and after that), each stored once after the ` +
        `restore from the incremental backup; full backup ${full.manifest.bytes} bytes (ClickHouse ` +
        `${clickhouseBytes(full.manifest)}) in ${full.ms} ms, incremental ${incremental.manifest.bytes} bytes ` +
        `(ClickHouse ${clickhouseBytes(incremental.manifest)}) in ${incremental.ms} ms, restore in ${restore.ms} ms\n`,
    );
  }, 480_000);
});
