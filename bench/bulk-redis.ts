// npm run bench:bulk-redis — the Redis work of one bulk request (100 new listings), measured the
// way the API does it (admission.ts: one script before the publish, the confirm after it), and the
// script without its confirm, to show what the confirm costs (one write per request since the
// claims of a batch count by its claims key: seen-store.ts), alternating in one run so the two
// compare on a loaded machine. Prints, per listing, the CPU of Redis (/proc) and of this client,
// and the wall time per request at concurrency 16.
// Knobs: BENCH_REQUESTS (2000 per variant), BENCH_CONCURRENCY (16). Uses the environment's Redis.
import { randomUUID } from 'node:crypto';
import { createRedis, redisReady, scanAll } from '../common/clients/redis.ts';
import { admissionStore } from '../ingest/listings/admission.ts';
import { cpuSnapshot, stackProcesses } from './process-stats.ts';
import { benchEnv } from './support.ts';

const requests = Number(process.env.BENCH_REQUESTS ?? 2000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const LISTINGS = 100;
const prefix = `${benchEnv.REDIS_KEY_PREFIX}bench-bulk-redis:`;
const redis = createRedis(
  { url: benchEnv.REDIS_URL, clusterNodes: benchEnv.REDIS_CLUSTER_NODES },
  { name: 'bench-bulk-redis' },
);
await redisReady(redis);
const redisProcesses = stackProcesses().filter((p) => p.name.startsWith('redis'));
const admission = admissionStore(redis, prefix, benchEnv.REDIS_GLOBAL_PARTS);
const owner = { accountId: 'acct_bench_bulk', mode: 'live' } as const;

function request() {
  const batchId = randomUUID();
  return {
    batch: {
      batch_id: batchId,
      account_id: owner.accountId,
      is_test: false,
      total: LISTINGS,
      duplicates: 0,
      failed_indexes: [],
    },
    owner,
    candidates: Array.from({ length: LISTINGS }, () => randomUUID()),
    limit: Number.MAX_SAFE_INTEGER,
    at: new Date(),
  };
}

const variants = {
  async 'the claims and the record, then the confirm (admission.ts)'() {
    const r = request();
    const admitted = await admission.admit(r);
    if (admitted.kind === 'admitted') {
      await admission.confirm(r.owner.accountId, admitted.created, r.batch.batch_id);
    }
  },
  // Not a way to run (a claim must be confirmed): what the confirm costs.
  async 'the admission alone, without the confirm'() {
    await admission.admit(request());
  },
};

async function measure(run: () => Promise<void>) {
  const cpu = cpuSnapshot(redisProcesses);
  const client = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) await run();
    }),
  );
  const wallMs = performance.now() - started;
  const after = cpuSnapshot(redisProcesses);
  const redisTicks = redisProcesses.reduce((sum, p) => sum + (after.get(p.pid)! - cpu.get(p.pid)!), 0);
  const used = process.cpuUsage(client);
  const listings = requests * LISTINGS;
  return {
    redisUs: (redisTicks * 10_000) / listings, // 100 ticks per second
    clientUs: (used.user + used.system) / listings,
    msPerRequest: (wallMs * concurrency) / requests,
  };
}

const results = new Map<string, { redisUs: number; clientUs: number; msPerRequest: number }[]>();
for (let round = 0; round < 3; round++) {
  for (const [name, run] of Object.entries(variants)) {
    const figures = await measure(run);
    results.set(name, [...(results.get(name) ?? []), figures]);
  }
}
const range = (values: number[], digits: number) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
console.log(
  `bench:bulk-redis — ${requests} requests of ${LISTINGS} new listings per variant and round, concurrency ${concurrency}, 3 rounds alternating`,
);
for (const [name, rounds] of results) {
  console.log(
    `${name.padEnd(50)} Redis ${range(
      rounds.map((r) => r.redisUs),
      2,
    )} µs/listing  client ${range(
      rounds.map((r) => r.clientUs),
      2,
    )} µs/listing  ${range(
      rounds.map((r) => r.msPerRequest),
      2,
    )} ms/request`,
  );
}

for (const key of await scanAll(redis, `${prefix}*`)) await redis.del(key);
redis.disconnect();
