// npm run bench:ingest — throughput and latency of POST /listings/bulk with 100-listing batches,
// next to a baseline measured in the same run: a bare node:http server (own process) that only
// reads and JSON-parses the same bodies, and a reference Express + zod server (own process) that
// validates them with the listing schema and does nothing else. Prints accepted listings/s,
// p50/p99 and the ratios.
//
// Runs against the stack of the environment (npm start's by default; RLS_PORT_BASE / RLS_NAMESPACE /
// *_URL select another). Starts its own gateway on BENCH_PORT (default 28190) unless BENCH_BASE_URL
// points at a running one. Knobs: BENCH_SECONDS (10), BENCH_CONCURRENCY (16), BENCH_WARMUP_SECONDS (2).
// Every listing is unique, so every one is created and published (no duplicate fast path).
import { percentile } from './percentile.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createKeyStore } from '../common/auth/key-store.ts';
import { createKafka } from '../common/clients/kafka.ts';
import { createRedis, redisReady } from '../common/clients/redis.ts';
import { baseEnvSchema, parseEnv } from '../common/env.ts';
import { createLogger } from '../common/logger.ts';
import { createTopics } from '../infra/kafka/create-topics.ts';
import { spawnService, stopChildren } from '../infra/local/services.mjs';
import {
  cpuSnapshot,
  printCpuTable,
  stackProcesses,
  type CpuSnapshot,
  type TrackedProcess,
} from './process-stats.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const port = Number(process.env.BENCH_PORT ?? 28190);
const LISTINGS_PER_REQUEST = 100;
const LOAD_GENERATOR = 'load generator (this process)';
const loadGenerator: TrackedProcess = { name: LOAD_GENERATOR, pid: process.pid };

/** Same namespacing as infra/local/stack.mjs (RLS_NAMESPACE → topic, database and key prefixes). */
function namespaceEnv(ns: string | undefined): Record<string, string> {
  if (!ns) return {};
  if (!/^[a-z][a-z0-9]{0,20}$/.test(ns))
    throw new Error('RLS_NAMESPACE must be lowercase letters and digits');
  return { KAFKA_TOPIC_PREFIX: `${ns}.`, CLICKHOUSE_DATABASE: `rls_${ns}`, REDIS_KEY_PREFIX: `rls:${ns}:` };
}
const run = Date.now().toString(36);
// Topics of this run only: no stream worker reads them, and they are deleted at the end, so the
// listings published here never reach a worker later (they would load a later benchmark's worker).
const benchTopicPrefix = `bench-ingest-${run}.`;
const serviceEnvVars = {
  ...process.env,
  ...namespaceEnv(process.env.RLS_NAMESPACE),
  KAFKA_TOPIC_PREFIX: benchTopicPrefix,
};
const env = parseEnv(baseEnvSchema, serviceEnvVars);

/** One body template; `#N#` becomes the request sequence number so every listing is new. */
function bodyTemplate(): string {
  const listings = Array.from({ length: LISTINGS_PER_REQUEST }, (_, i) => ({
    title: `Bench flat ${run}-#N#-${i}`,
    description: 'Two-bedroom apartment near the beach, with parking, a generator and fast wifi.',
    property_type: i % 3 === 0 ? 'house' : 'apartment',
    price: 500_000 + i * 1_000,
    currency: 'TZS',
    bedrooms: 1 + (i % 4),
    bathrooms: 1,
    area_sqm: 85.5,
    address: `Plot ${i}, Masaki Road, Dar es Salaam`,
    latitude: -6.75 - i / 1000,
    longitude: 39.27 + i / 1000,
    amenities: ['parking', 'generator', 'wifi'],
    images: [`https://img.example.com/${i}/1.jpg`, `https://img.example.com/${i}/2.jpg`],
    whatsapp_number: '+255712345678',
  }));
  return JSON.stringify({ listings });
}

interface Result {
  requests: number;
  listings: number;
  errors: number;
  latencies: number[];
  elapsed: number;
}

async function load(
  url: URL,
  headers: Record<string, string>,
  countListings: (body: string) => number,
  processes: TrackedProcess[],
) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const template = bodyTemplate();
  let seq = 0;
  const send = () =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const body = template.replaceAll('#N#', String(seq++));
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            ...headers,
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  async function phase(durationMs: number): Promise<Result> {
    const result: Result = { requests: 0, listings: 0, errors: 0, latencies: [], elapsed: 0 };
    const start = performance.now();
    const deadline = start + durationMs;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          const t0 = performance.now();
          const response = await send().catch(() => ({ status: 0, text: '' }));
          result.latencies.push(performance.now() - t0);
          result.requests++;
          if (response.status >= 200 && response.status < 300)
            result.listings += countListings(response.text);
          else if (result.errors++ === 0)
            console.error(`  first error: ${response.status} ${response.text.slice(0, 200)}`);
        }
      }),
    );
    result.elapsed = (performance.now() - start) / 1000;
    return result;
  }

  await phase(warmupSeconds * 1000);
  const before = cpuSnapshot(processes);
  const measured = await phase(seconds * 1000);
  const after = cpuSnapshot(processes);
  agent.destroy();
  return { ...measured, cpu: { processes, before, after } };
}

function summarize(
  name: string,
  r: Result & { cpu: { processes: TrackedProcess[]; before: CpuSnapshot; after: CpuSnapshot } },
) {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const row = {
    name,
    listingsPerSec: r.listings / r.elapsed,
    requestsPerSec: r.requests / r.elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors: r.errors,
  };
  console.log(
    `${name.padEnd(28)} ${row.listingsPerSec.toFixed(0).padStart(9)} listings/s ${row.requestsPerSec
      .toFixed(1)
      .padStart(
        8,
      )} req/s   p50 ${row.p50.toFixed(1).padStart(6)} ms   p99 ${row.p99.toFixed(1).padStart(6)} ms   errors ${r.errors}`,
  );
  const cpu = printCpuTable(r.cpu.processes, r.cpu.before, r.cpu.after, {
    listings: r.listings,
    seconds: r.elapsed,
    notCounted: [LOAD_GENERATOR],
  });
  return { ...row, serverMicros: cpu.byName[r.cpu.processes[0]!.name]! };
}

/** The baseline: a bare node:http server in its own process that reads and JSON-parses each body. */
const bareServer = `
const http = require('node:http');
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(201, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ accepted: body.listings.length }));
  });
}).listen(Number(process.argv[1]), '127.0.0.1', () => process.send && process.send('ready'));
`;

async function waitForUrl(url: string, children: ChildProcess[], timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const c of children) if (c.exitCode !== null) throw new Error(`service exited with ${c.exitCode}`);
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await sleep(250);
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

async function main() {
  const children: ChildProcess[] = [];
  const kafka = createKafka(env.KAFKA_BROKERS, 'rls-bench', createLogger('error'));
  try {
    await createTopics(kafka, env.KAFKA_TOPIC_PREFIX);
    const redis = createRedis(
      { url: env.REDIS_URL, clusterNodes: env.REDIS_CLUSTER_NODES },
      { name: 'bench' },
    );
    await redisReady(redis);
    const key = await createKeyStore(redis, env.REDIS_KEY_PREFIX).create({
      mode: 'live',
      tier: 'enterprise',
      name: `bench ${run}`,
      rateLimit: 1_000_000,
    });
    redis.disconnect();

    let baseUrl = process.env.BENCH_BASE_URL;
    // Without a gateway of its own (BENCH_BASE_URL) the table shows only the stack's components.
    const serviceProcesses: TrackedProcess[] = [];
    if (!baseUrl) {
      const gateway = spawnService('gateway', { ...serviceEnvVars, PORT: String(port), LOG_LEVEL: 'warn' });
      children.push(gateway);
      serviceProcesses.push({ name: 'gateway (API)', pid: gateway.pid! });
      baseUrl = `http://127.0.0.1:${port}`;
      await waitForUrl(`${baseUrl}/api/v1/openapi.json`, children);
    }
    const barePort = port + 1;
    const bare = spawn(process.execPath, ['-e', bareServer, String(barePort)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(bare);
    const expressPort = port + 2;
    const expressZod = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/express-zod-reference.ts', String(expressPort)],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    children.push(expressZod);
    await Promise.all([bare, expressZod].map((c) => new Promise((resolve) => c.once('message', resolve))));

    console.log(
      `bench:ingest — ${LISTINGS_PER_REQUEST}-listing batches (${bodyTemplate().length} bytes), concurrency ${concurrency}, ${seconds} s each after ${warmupSeconds} s warm-up`,
    );
    // Both comparison servers take the body without a key and answer {"accepted": n}.
    const loadLocal = async (label: string, server: ChildProcess, serverPort: number, name: string) =>
      summarize(
        label,
        await load(
          new URL(`http://127.0.0.1:${serverPort}/`),
          {},
          (text) => (JSON.parse(text) as { accepted: number }).accepted,
          [{ name, pid: server.pid! }, loadGenerator],
        ),
      );
    const baseline = await loadLocal('baseline (bare JSON.parse)', bare, barePort, 'baseline server');
    const reference = await loadLocal(
      'reference (Express + zod)',
      expressZod,
      expressPort,
      'reference server',
    );
    const service = summarize(
      'POST /api/v1/listings/bulk',
      await load(
        new URL(`${baseUrl}/api/v1/listings/bulk`),
        { 'X-API-Key': key.key },
        (text) => {
          return (JSON.parse(text) as { summary: { created: number } }).summary.created;
        },
        [...serviceProcesses, ...stackProcesses(), loadGenerator],
      ),
    );
    const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(1)} %`;
    console.log(
      `ratio (service / baseline listings/s): ${pct(service.listingsPerSec, baseline.listingsPerSec)}`,
    );
    console.log(
      `reference / baseline: ${pct(reference.listingsPerSec, baseline.listingsPerSec)}; service / reference: ${pct(service.listingsPerSec, reference.listingsPerSec)} (goal ≥ 50 %)`,
    );
    if (serviceProcesses.length)
      console.log(
        `API CPU per accepted listing: ${service.serverMicros.toFixed(1)} µs; reference ${reference.serverMicros.toFixed(1)} µs; baseline ${baseline.serverMicros.toFixed(1)} µs`,
      );
  } finally {
    await stopChildren(children);
    const admin = kafka.admin();
    await admin.connect();
    const ours = (await admin.listTopics()).filter((topic) => topic.startsWith(benchTopicPrefix));
    await admin
      .deleteTopics({ topics: ours })
      .catch((error: Error) => console.error(`  topics left: ${error.message}`));
    await admin.disconnect();
  }
}

await main();
process.exit(0);
