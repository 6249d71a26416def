// npm run bench:profile -- <file.cpuprofile> [µs per listing] — where a service's CPU goes, by the
// job each part of the code does (the guarantee it pays for), from a V8 CPU profile taken under a
// benchmark (RLS_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench:ingest).
//
// Each sample (idle excluded) goes to the first category whose rule matches its stack, walking from
// the sampled function towards the root: a library doing the work (kafkajs, ioredis, zod) decides
// before the function of ours that called it. Given the µs of CPU per listing that the benchmark's
// /proc table printed for the same process, each share is also shown in µs per listing.
import fs from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

type Rule = [category: string, matches: (frame: CallFrame) => boolean];

const fn =
  (...names: string[]) =>
  (f: CallFrame) =>
    names.includes(f.functionName);
const lib =
  (...parts: string[]) =>
  (f: CallFrame) =>
    parts.some((p) => f.url.includes(`/node_modules/${p}/`));
const ours = (file: string) => (f: CallFrame) => f.url.includes('/dist/') && f.url.endsWith(file);

/** First match wins for each frame; frames are tried from the sampled one towards the root. */
const rules: Rule[] = [
  ['garbage collection', fn('(garbage collector)')],
  ['Kafka client (kafkajs: record batches, CRC32C, fetch decoding, socket)', lib('kafkajs')],
  ['Redis commands (ioredis: keys, limits, duplicates, quota, batch, usage)', lib('ioredis', 'redis-parser')],
  [
    'listing schema (fast path, else zod) and context rules',
    (f) => lib('zod')(f) || ours('validate.js')(f) || ours('listing-fast-parse.js')(f),
  ],
  ['Kafka message JSON (validated listings serialised once)', fn('encodeListingBatch')],
  ['listing ids (fingerprint normalisation, SHA-1)', ours('fingerprint.js')],
  ['listing ids (fingerprint normalisation, SHA-1)', fn('deterministicUuid')],
  ['JSON safety (depth scan, prototype keys)', fn('maxNestingDepth', 'forbiddenKeyIn')],
  ['body bytes and JSON.parse', (f) => fn('parseJsonSafely')(f) || lib('raw-body', 'body-parser')(f)],
  ['response JSON', (f) => f.url.includes('/express/lib/response.js') || ours('respond.js')(f)],
  ['bulk request bookkeeping (results, duplicates, batch fields)', ours('bulk-create.js')],
  ['access log, metrics, request ids', (f) => ours('access-log.js')(f) || lib('prom-client')(f)],
  ['HTTP server and Express routing', (f) => lib('express', 'router')(f) || f.url.startsWith('node:_http')],
  // The stream worker's jobs.
  [
    'ClickHouse insert bodies (@clickhouse/client JSON rows)',
    lib('@clickhouse/client', '@clickhouse/client-common'),
  ],
  ['Kafka message JSON.parse (stream)', (f) => ours('stream/parse.js')(f) || ours('listings/decode.js')(f)],
  [
    'enrichment (place, H3 cell, amenities, FX, row)',
    (f) => f.url.includes('/dist/stream/enrich/') || ours('listings/row.js')(f) || lib('h3-js')(f),
  ],
  [
    'batch completion and webhook events',
    (f) => f.url.includes('/dist/stream/webhooks/') || ours('batches.js')(f),
  ],
  [
    'image checks and photo tagging',
    (f) => f.url.includes('/dist/stream/images/') || lib('onnxruntime-node', 'sharp')(f),
  ],
  ['stream consumer and writer (offsets, fences, batching)', (f) => f.url.includes('/dist/stream/')],
];

export function summarise(profile: Profile): { category: string; share: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const timeByNode = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    timeByNode.set(id, (timeByNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );

  const totals = new Map<string, number>();
  let active = 0;
  for (const [id, time] of timeByNode) {
    if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
    active += time;
    let category = 'other (event loop, timers, streams, startup)';
    search: for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      for (const [name, matches] of rules) {
        if (matches(frame)) {
          category = name;
          break search;
        }
      }
    }
    totals.set(category, (totals.get(category) ?? 0) + time);
  }
  return [...totals]
    .map(([category, time]) => ({ category, share: time / active }))
    .sort((a, b) => b.share - a.share);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, perListing] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npm run bench:profile -- <file.cpuprofile> [µs of CPU per listing]');
    process.exit(2);
  }
  const micros = perListing ? Number(perListing) : undefined;
  const rows = summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile);
  console.log(`${'share'.padStart(6)} ${micros ? 'µs/listing'.padStart(11) : ''}  category`);
  for (const row of rows) {
    const us = micros ? (row.share * micros).toFixed(1).padStart(11) : '';
    console.log(`${(row.share * 100).toFixed(1).padStart(5)}% ${us}  ${row.category}`);
  }
}
