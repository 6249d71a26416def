// npm run bench:redis — what accepted listings cost Redis on one node, through the real API of a
// started stack (gateway, stream worker and image process started here against the environment's
// stack, under a key prefix of this run): BENCH_LISTINGS listings (20,000) posted in 100-listing
// requests with Idempotency-Keys, BENCH_CONCURRENCY (4) at a time, then waited for until every one
// is stored in ClickHouse and its batch completed. Prints, per accepted listing:
// - Redis commands (INFO commandstats before/after: the total and per command; commands run inside
//   scripts count too, as Redis counts them);
// - Redis CPU µs (INFO cpu, used_cpu_sys + used_cpu_user);
// both also net of what the idle services cost over the same time (measured for BENCH_IDLE_SECONDS
// (10) before posting): heartbeats, health checks, jobs;
// - bytes per listing per key family (MEMORY USAGE of every key of the run's prefix, each key
//   counted in the family of the registry, common/redis-keys/registry.ts, whose name or previous
//   name it has). Where the registry is missing (a release before it), the keys and their bytes
//   are written to BENCH_KEYS_OUT and `npm run bench:redis -- --classify <file>` of a release with
//   the registry prints the families.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';

type KeyBytes = Record<string, number>; // key name after the prefix → MEMORY USAGE

if (process.argv[2] === '--classify') {
  const { keys, listings } = JSON.parse(readFileSync(process.argv[3]!, 'utf8')) as {
    keys: KeyBytes;
    listings: number;
  };
  await printFamilies(keys, listings);
  process.exit(0);
}

const total = Number(process.env.BENCH_LISTINGS ?? 20_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
const port = Number(process.env.BENCH_PORT ?? Number(process.env.RLS_PORT_BASE ?? 28000) + 191);
const run = Date.now().toString(36);
// The services and this process use a prefix of this run: its keys are the run's keys alone.
process.env.REDIS_KEY_PREFIX = `rls:bench-redis-${run}:`;
const { startBenchStack, benchEnv } = await import('./support.ts');
const { nextListingsBody } = await import('./listing-bodies.ts');
const prefix = benchEnv.REDIS_KEY_PREFIX;

const stack = await startBenchStack('bench-redis-cost', port);
const { redis, clickhouse, baseUrl, key } = stack;
try {
  if ((await redis.info('server')).includes('redis_mode:cluster'))
    throw new Error('bench:redis measures one node: run it on RLS_TOPOLOGY=single');
  const post = async () => {
    const r = await fetch(`${baseUrl}/api/v1/listings/bulk`, {
      method: 'POST',
      headers: {
        'X-API-Key': key.key,
        'Content-Type': 'application/json',
        'Idempotency-Key': randomUUID(),
      },
      body: nextListingsBody('Bench Redis cost'),
    });
    const body = (await r.json()) as { batch_id?: string; summary?: { created: number } };
    if (r.status !== 201)
      throw new Error(`POST /listings/bulk answered ${r.status}: ${JSON.stringify(body)}`);
    return { batchId: body.batch_id!, accepted: body.summary!.created };
  };
  // Warm-up: scripts loaded, the account, its quotas and the owners' marker made.
  const warmup = (await post()).accepted;
  await untilStored(warmup);

  const idle0 = await sample(redis);
  await sleep(idleSeconds * 1000);
  const idle = delta(idle0, await sample(redis));

  const before = await sample(redis);
  let accepted = 0;
  const batches: string[] = [];
  const requests = Math.ceil(total / 100);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        next++;
        const r = await post();
        accepted += r.accepted;
        batches.push(r.batchId);
      }
    }),
  );
  await untilStored(warmup + accepted);
  await untilCompleted(batches);
  const after = await sample(redis);
  const used = delta(before, after);
  const net = (value: number, idleValue: number) => value - (idleValue * used.seconds) / idle.seconds;

  const perListing = (n: number) => (n / accepted).toFixed(3);
  console.log(
    `\nbench:redis — ${accepted} listings accepted in ${requests} requests (${used.seconds.toFixed(1)} s)`,
  );
  console.log(
    `Redis commands per accepted listing: ${perListing(used.calls)} (net of idle: ${perListing(net(used.calls, idle.calls))})`,
  );
  console.log(
    `Redis CPU µs per accepted listing: ${perListing(used.cpuUs)} (net of idle: ${perListing(net(used.cpuUs, idle.cpuUs))})`,
  );
  console.log('per command (calls per listing, net of idle):');
  const rows = Object.entries(used.perCommand)
    .map(([command, calls]) => [command, net(calls, idle.perCommand[command] ?? 0) / accepted] as const)
    .filter(([, calls]) => Math.abs(calls) >= 0.0005)
    .sort((a, b) => b[1] - a[1]);
  for (const [command, calls] of rows) console.log(`  ${command.padEnd(24)} ${calls.toFixed(3)}`);

  const keys = await keyBytes(redis, prefix);
  const out =
    process.env.BENCH_KEYS_OUT ?? `${process.env.RLS_STATE_DIR ?? '.'}/bench-redis-keys-${run}.json`;
  writeFileSync(out, JSON.stringify({ listings: warmup + accepted, keys }));
  console.log(`\n${Object.keys(keys).length} keys of the run written to ${out}`);
  await printFamilies(keys, warmup + accepted);
} finally {
  await stack.close();
}

interface Sample {
  at: number;
  calls: number;
  cpuUs: number;
  perCommand: Record<string, number>;
}

async function sample(redis: Redis): Promise<Sample> {
  const stats = await redis.info('commandstats');
  const cpu = await redis.info('cpu');
  const perCommand: Record<string, number> = {};
  for (const [, command, calls] of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    perCommand[command!] = Number(calls);
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(cpu)?.[1] ?? 0);
  return {
    at: performance.now(),
    calls: Object.values(perCommand).reduce((a, b) => a + b, 0),
    cpuUs: (field('used_cpu_sys') + field('used_cpu_user')) * 1e6,
    perCommand,
  };
}

function delta(a: Sample, b: Sample) {
  const perCommand: Record<string, number> = {};
  for (const command of Object.keys(b.perCommand))
    perCommand[command] = b.perCommand[command]! - (a.perCommand[command] ?? 0);
  // The two INFO calls of a sample are commands too; left in (2 per sample, nothing per listing).
  return { seconds: (b.at - a.at) / 1000, calls: b.calls - a.calls, cpuUs: b.cpuUs - a.cpuUs, perCommand };
}

async function untilStored(count: number) {
  for (let waited = 0; ; waited += 500) {
    const result = await clickhouse.query({
      query: 'SELECT count() AS n FROM listings WHERE account_id = {account:String}',
      query_params: { account: key.account_id },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ n: string }>();
    if (Number(row!.n) >= count) return;
    if (waited > 600_000) throw new Error(`only ${row!.n} of ${count} listings stored after 10 min`);
    await sleep(500);
  }
}

async function untilCompleted(batchIds: string[]) {
  for (const batchId of batchIds) {
    for (let waited = 0; ; waited += 200) {
      const r = await fetch(`${baseUrl}/api/v1/listings/batches/${batchId}`, {
        headers: { 'X-API-Key': key.key },
      });
      const body = (await r.json()) as { status?: string };
      if (body.status === 'completed') break;
      if (waited > 120_000) throw new Error(`batch ${batchId} not completed: ${JSON.stringify(body)}`);
      await sleep(200);
    }
  }
}

/** MEMORY USAGE of every key under `prefix`, by its name after the prefix. */
async function keyBytes(redis: Redis, prefix: string): Promise<KeyBytes> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [nextCursor, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = nextCursor;
  } while (cursor !== '0');
  const bytes: KeyBytes = {};
  for (let i = 0; i < keys.length; i += 1000) {
    const pipeline = redis.pipeline();
    for (const k of keys.slice(i, i + 1000)) pipeline.memory('USAGE', k, 'SAMPLES', '0');
    const replies = (await pipeline.exec()) ?? [];
    replies.forEach(([, reply], j) => (bytes[keys[i + j]!.slice(prefix.length)] = Number(reply ?? 0)));
  }
  return bytes;
}

/** Bytes per listing per registry family; a key matching no family is listed by itself. */
async function printFamilies(keys: KeyBytes, listings: number) {
  let families: { name: string; patterns: RegExp[] }[];
  try {
    const registry = './../common/redis-keys/registry.ts';
    const { keyFamilies } = (await import(registry)) as typeof import('../common/redis-keys/registry.ts');
    families = keyFamilies.map((f) => ({
      name: f.name,
      patterns: [nameRegExp(f.name), ...(f.legacy ? [globRegExp(f.legacy.pattern)] : [])],
    }));
  } catch {
    console.log('no key registry in this release: classify the keys file with a release that has it');
    return;
  }
  const byFamily = new Map<string, { keys: number; bytes: number }>();
  for (const [name, bytes] of Object.entries(keys)) {
    // The most specific family: the match whose pattern has the most literal text.
    const matches = families.filter((f) => f.patterns.some((p) => p.test(name)));
    const family =
      matches.sort((a, b) => literalLength(b.name) - literalLength(a.name))[0]?.name ?? `(none) ${name}`;
    const entry = byFamily.get(family) ?? { keys: 0, bytes: 0 };
    entry.keys++;
    entry.bytes += bytes;
    byFamily.set(family, entry);
  }
  const rows = [...byFamily].sort((a, b) => b[1].bytes - a[1].bytes);
  const sum = rows.reduce((a, [, e]) => a + e.bytes, 0);
  console.log(`\nRedis memory per listing by family (${listings} listings; MEMORY USAGE of each key):`);
  for (const [family, e] of rows)
    console.log(
      `  ${family.padEnd(56)} ${String(e.keys).padStart(7)} keys ${(e.bytes / listings).toFixed(1).padStart(8)} B/listing`,
    );
  console.log(
    `  ${'total'.padEnd(56)} ${String(Object.keys(keys).length).padStart(7)} keys ${(sum / listings).toFixed(1).padStart(8)} B/listing`,
  );
}

function literalLength(name: string): number {
  return name.replace(/<[^>]+>/g, '').length;
}

/** A registry name (`{a:<account>}:quota:<account>`) as a regular expression of key names. */
function nameRegExp(name: string): RegExp {
  const parts = name.split(/<[^>]+>/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.+')}$`);
}

/** A SCAN glob (`owners:v2:[0-9a-f]*`) as a regular expression. */
function globRegExp(glob: string): RegExp {
  const source = glob
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replaceAll('*', '.*')
    .replaceAll('?', '.');
  return new RegExp(`^${source}$`);
}
