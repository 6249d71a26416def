// npm run bench:photos — photo analysis throughput of one image process: listings with 10 distinct
// photo-like JPEGs each (the eval photos, each shifted, scaled and tinted differently) served by a
// local image server, posted through the API; measures images/s from the first post until every
// image has its listing_images row, the analysis time per photo (analyse_ms: decode, hash, tag), and
// the resident memory of the image process (with its decoder children) and of the stream worker
// (sampled every 250 ms, and their VmHWM peaks).
//
// Runs against the stack of the environment (npm start's by default; RLS_PORT_BASE / RLS_STATE_DIR /
// *_URL select another) with its own gateway (BENCH_PORT, default 28192), one stream worker and one
// image process. Knobs: BENCH_PHOTOS (600), PHOTO_TAG_CONCURRENCY (default 1), PHOTO_MODEL_PATH
// (default: the provisioned model in RLS_CACHE_DIR).
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { queryRows } from '../common/clients/clickhouse.ts';
import { ensurePhotoModel } from '../infra/local/photo-model.mjs';
import { spawnService, stopChildren, waitForHealth } from '../infra/local/services.mjs';
import { readSettings, repoRoot } from '../infra/local/settings.mjs';
import { residentMemory, residentMemoryWithChildren } from './process-stats.ts';
import { connectBenchStores, createBenchKey } from './support.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const total = Number(process.env.BENCH_PHOTOS ?? 600);
const port = Number(process.env.BENCH_PORT ?? 28192);
const perListing = 10;

/** `total` distinct JPEGs of about listing-photo size (~960 px wide), made from the eval photos. */
async function photos(): Promise<Buffer[]> {
  const dir = path.join(repoRoot, 'eval/photos');
  const sources = fs.readdirSync(dir).filter((f) => f.endsWith('.jpg'));
  const out: Buffer[] = [];
  for (let i = 0; i < total; i++) {
    const src = sharp(path.join(dir, sources[i % sources.length]!));
    const { width, height } = await src.metadata();
    const cut = 1 + (i % 37);
    out.push(
      await sharp(path.join(dir, sources[i % sources.length]!))
        .extract({ left: cut, top: cut % 17, width: width! - cut * 2, height: height! - (cut % 17) * 2 })
        .resize(900 + (i % 60))
        .linear(0.9 + (i % 20) / 100, 0)
        .jpeg({ quality: 80 + (i % 15) })
        .toBuffer(),
    );
  }
  return out;
}

type Stores = Awaited<ReturnType<typeof connectBenchStores>>;
type BenchKey = Awaited<ReturnType<typeof createBenchKey>>;
const mb = (kb: number | undefined) => Math.round((kb ?? 0) / 1024);

async function main() {
  const images = await photos();
  const { server, imageBase } = await serveImages(images);
  const { redis, clickhouse } = await connectBenchStores('bench-photos');
  const children = await spawnServices();
  const [stream, imageProcess] = [children[1]!, children[2]!];
  try {
    await waitForHealth(port, { children, timeoutMs: 120_000 });
    const key = await createBenchKey(redis, 'bench-photos');
    const idle = residentMemory(imageProcess.pid!);
    const idleWithDecoders = residentMemoryWithChildren(imageProcess.pid!);
    const started = Date.now();
    const listingIds = await postListings(key, imageBase, started);
    const peaks = await waitForAnalysis(clickhouse, key, started, { imageProcess, stream });
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `${total} photos (${listingIds.length} listings × ${perListing}) in ${seconds.toFixed(1)} s: ` +
        `${(total / seconds).toFixed(1)} photos/s by one image process with ` +
        `PHOTO_TAG_CONCURRENCY=${process.env.PHOTO_TAG_CONCURRENCY ?? 1}`,
    );
    await reportAnalysis(clickhouse, key);
    const mem = residentMemory(imageProcess.pid!);
    const streamMem = residentMemory(stream.pid!);
    console.log(
      `image process pid ${imageProcess.pid}: resident ${mb(idle?.rssKb)} MB idle, ` +
        `peak ${mb(peaks.rss)} MB while analysing, ${mb(mem?.rssKb)} MB after (VmHWM ${mb(mem?.hwmKb)} MB); ` +
        `with its decoder process(es): ${mb(idleWithDecoders?.rssKb)} MB idle, peak ${mb(peaks.withDecoders)} MB`,
    );
    console.log(
      `stream worker pid ${stream.pid}: peak ${mb(peaks.stream)} MB meanwhile (VmHWM ${mb(streamMem?.hwmKb)} MB)`,
    );
  } finally {
    await stopChildren(children);
    server.close();
    await clickhouse.close();
    redis.disconnect();
  }
}

/** A local server answering /<i>.jpg with the i-th photo; its base URL (a name the stack allows). */
async function serveImages(images: Buffer[]): Promise<{ server: http.Server; imageBase: string }> {
  const server = http.createServer((req, res) => {
    const body = images[Number(/^\/(\d+)\.jpg$/.exec(req.url ?? '')?.[1] ?? -1)];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, imageBase: `http://bench-photos.localhost:${(server.address() as AddressInfo).port}` };
}

/** The benchmark's gateway, stream worker and image process, in that order. */
async function spawnServices(): Promise<ChildProcess[]> {
  const serviceEnv = {
    ...process.env,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    PHOTO_MODEL_PATH: process.env.PHOTO_MODEL_PATH || (await ensurePhotoModel(readSettings(process.env))),
  };
  return [
    spawnService('gateway', serviceEnv),
    spawnService('stream', serviceEnv),
    spawnService('images', serviceEnv),
  ];
}

/** Posts the listings, 10 per request with `perListing` photos each; their ids. */
async function postListings(key: BenchKey, imageBase: string, started: number): Promise<string[]> {
  const listingIds: string[] = [];
  for (let first = 0; first < total; first += perListing * 10) {
    const listings = [];
    for (let l = first; l < Math.min(total, first + perListing * 10); l += perListing)
      listings.push({
        title: `Photo bench ${started}-${l}`,
        description: 'Two-bedroom apartment with a new kitchen.',
        property_type: 'apartment',
        price: 900_000,
        latitude: -6.77,
        longitude: 39.27,
        images: Array.from(
          { length: Math.min(perListing, total - l) },
          (_, i) => `${imageBase}/${l + i}.jpg`,
        ),
      });
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/listings/bulk`, {
      method: 'POST',
      headers: { 'X-API-Key': key.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ listings }),
    });
    const body = (await response.json()) as { results: { listing_id: string }[] };
    if (response.status !== 201) throw new Error(`POST ${response.status}: ${JSON.stringify(body)}`);
    listingIds.push(...body.results.map((r) => r.listing_id));
  }
  return listingIds;
}

/**
 * Waits (10 min at most) until every photo has its listing_images row, sampling the resident
 * memory of the image process (alone and with its decoders) and of the stream worker every 250 ms.
 */
async function waitForAnalysis(
  clickhouse: Stores['clickhouse'],
  key: BenchKey,
  started: number,
  { imageProcess, stream }: { imageProcess: ChildProcess; stream: ChildProcess },
): Promise<{ rss: number; withDecoders: number; stream: number }> {
  const peaks = { rss: 0, withDecoders: 0, stream: 0 };
  let analysed = 0;
  while (analysed < total) {
    await sleep(250);
    peaks.rss = Math.max(peaks.rss, residentMemory(imageProcess.pid!)?.rssKb ?? 0);
    peaks.withDecoders = Math.max(
      peaks.withDecoders,
      residentMemoryWithChildren(imageProcess.pid!)?.rssKb ?? 0,
    );
    peaks.stream = Math.max(peaks.stream, residentMemory(stream.pid!)?.rssKb ?? 0);
    const [row] = await queryRows<{ n: string }>(
      clickhouse,
      `SELECT count() AS n FROM listing_images WHERE account_id = {account:String}`,
      { account: key.account_id },
    );
    analysed = Number(row?.n ?? 0);
    if (Date.now() - started > 600_000) throw new Error(`only ${analysed}/${total} analysed after 10 min`);
  }
  return peaks;
}

/** Outcomes and the analysis time per photo, from the account's listing_images rows. */
async function reportAnalysis(clickhouse: Stores['clickhouse'], key: BenchKey): Promise<void> {
  const [stats] = await queryRows<Record<string, number>>(
    clickhouse,
    `SELECT countIf(outcome = 'decoded') AS decoded, quantile(0.5)(analyse_ms) AS p50,
            quantile(0.95)(analyse_ms) AS p95, countIf(image_of NOT IN ('', 'Other')) AS tagged,
            countIf(reused_photo = 1) AS reused
     FROM listing_images FINAL WHERE account_id = {account:String}`,
    { account: key.account_id },
  );
  console.log(
    `decoded ${stats!.decoded}, tagged ${stats!.tagged}, reused ${stats!.reused}; analysis per photo ` +
      `(decode + hash + tag) p50 ${stats!.p50} ms, p95 ${stats!.p95} ms`,
  );
}

await main();
