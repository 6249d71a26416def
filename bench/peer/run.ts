// bench:stream's run of the peer pipeline (server.ts → Kafka → consumer.ts → table.ts): a topic and
// a database of its own on the environment's Kafka and ClickHouse, its two processes started as
// children (their CPU read from /proc like ours'), the same load generator and freshness figures as
// ours (stream-load.ts), and everything it created removed at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createKafka } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { topicName } from '../../common/topics.ts';
import { serviceNode, stopChildren } from '../../infra/local/services.mjs';
import { benchClickHouse } from '../clickhouse-server.ts';
import { nextListingsBody } from '../listing-bodies.ts';
import { cpuSnapshot, printCpuTable, stackProcesses, type TrackedProcess } from '../process-stats.ts';
import { pickPaced, type PipelineFigures } from '../stream-compare.ts';
import {
  drained,
  highestPacedRate,
  loadTarget,
  pacedAndDrained,
  printFreshness,
  saturate,
} from '../stream-load.ts';
import { benchEnv, LOAD_GENERATOR } from '../support.ts';
import { createPeerTable, dropPeerDatabase, PEER_TABLE } from './table.ts';

export interface PeerRun {
  seconds: number;
  concurrency: number;
  port: number;
  /** Listings/s of the paced phase (ours' rate, so both are compared at the same load; default half the peer's stored rate). */
  pacedRate?: number;
  /** Whether to search for the highest paced rate whose freshness p95 stays ≤ 1 s. */
  pacedSearch?: boolean;
}

export async function measurePeer({
  seconds,
  concurrency,
  port,
  pacedRate,
  pacedSearch = false,
}: PeerRun): Promise<PipelineFigures> {
  const peer = await startPeer(port);
  try {
    const { processes, target, storedCount, storedAt } = peer;
    const full = target();
    const t0 = Date.now();
    const cpuBefore = cpuSnapshot(processes);
    const { accepted, apiSeconds } = await saturate(full.post, seconds, concurrency);
    const e2eSeconds = await drained(storedCount, accepted, t0, seconds + 300);
    const cpu = printCpuTable(processes, cpuBefore, cpuSnapshot(processes), {
      listings: accepted,
      seconds: e2eSeconds,
      notCounted: [LOAD_GENERATOR],
    });
    console.log(
      `peer: accepted ${accepted} listings in ${apiSeconds.toFixed(1)} s (${(accepted / apiSeconds).toFixed(0)}/s); ` +
        `all stored after ${e2eSeconds.toFixed(1)} s → ${(accepted / e2eSeconds).toFixed(0)} listings/s`,
    );
    const fullLoad = printFreshness(
      `of the peer under full load (${concurrency} in flight)`,
      full.posted,
      await storedAt(full.posted),
    );

    /** A paced phase at `rate` until stored (a minute at most, as ours waits), and its freshness. */
    const pacedPhase = async (rate: number) => {
      const slow = target();
      const load = await pacedAndDrained(slow.post, storedCount, {
        storedBefore: peer.acceptedSoFar(),
        seconds,
        listingsPerSecond: rate,
      });
      const posted = slow.posted;
      return {
        ...load,
        ...printFreshness(`of the peer at ${rate.toFixed(0)} listings/s`, posted, await storedAt(posted)),
      };
    };
    const f = await pacedPhase(pacedRate ?? accepted / e2eSeconds / 2);
    const trials = new Map<number, Awaited<ReturnType<typeof pacedPhase>>>();
    const highest = pacedSearch
      ? await highestPacedRate(async (rate) => {
          trials.set(rate, await pacedPhase(rate));
          return trials.get(rate)!;
        }, accepted / e2eSeconds)
      : undefined;
    const best = highest === undefined ? undefined : trials.get(highest);
    return {
      acceptedPerSecond: accepted / apiSeconds,
      storedPerSecond: accepted / e2eSeconds,
      cpuByProcess: cpu.byName,
      cpuTotal: cpu.totalMicrosPerListing,
      fullLoad: { p50: fullLoad.p50, p95: fullLoad.p95 },
      paced: { listingsPerSecond: f.listingsPerSecond, p50: f.p50, p95: f.p95 },
      ...(pacedSearch ? { highestPacedRate: highest ?? NaN } : {}),
      ...(best ? { highestPaced: pickPaced(best) } : {}),
    };
  } finally {
    await peer.close();
  }
}

/**
 * The peer started: its topic (as many partitions and replicas as our listings topic, so neither
 * has more parallelism) and database, its two processes, what the phases need to load and read it,
 * and `close`, which removes everything it created.
 */
async function startPeer(port: number) {
  const run = Date.now().toString(36);
  const topic = `${benchEnv.KAFKA_TOPIC_PREFIX}bench.peer.${run}`;
  const database = `bench_peer_${run}`;
  const group = `bench-peer-${run}`;
  const kafka = createKafka(benchEnv.KAFKA_BROKERS, 'bench-peer-admin', createLogger('error'));
  const admin = kafka.admin();
  await admin.connect();
  const clickhouse = createClient(benchClickHouse);
  const children: ChildProcess[] = [];
  const close = async () => {
    await stopChildren(children);
    await dropPeerDatabase(clickhouse, database).catch((error: Error) =>
      console.error(`peer database left: ${error.message}`),
    );
    // The consumer left its group when it stopped: an empty group can go.
    await admin
      .deleteGroups([group])
      .catch((error: Error) => console.error(`peer consumer group left: ${error.message}`));
    await admin
      .deleteTopics({ topics: [topic] })
      .catch((error: Error) => console.error(`peer topic left: ${error.message}`));
    await admin.disconnect();
    await clickhouse.close();
  };
  try {
    const ours = topicName(benchEnv.KAFKA_TOPIC_PREFIX, 'rls.listings.v1');
    const [listings] = (await admin.fetchTopicMetadata({ topics: [ours] })).topics;
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          numPartitions: listings!.partitions.length,
          replicationFactor: Math.min(...listings!.partitions.map((p) => p.replicas.length)),
        },
      ],
    });
    await createPeerTable(clickhouse, database);
    const peerEnv = {
      PEER_TOPIC: topic,
      PEER_DATABASE: database,
      PEER_GROUP: group,
      PEER_PORT: String(port),
    };
    const [server, consumer] = await startPeerProcesses(peerEnv, children);
    const processes: TrackedProcess[] = [
      { name: 'peer API', pid: server.pid! },
      { name: 'peer consumer', pid: consumer.pid! },
      // Redis idles through the peer's phases: the peer does not use it.
      ...stackProcesses().filter((p) => !p.name.startsWith('redis')),
      { name: LOAD_GENERATOR, pid: process.pid },
    ];
    console.log(
      `peer (Express + zod → kafkajs → kafkajs consumer → MergeTree), topic ${topic}, database ${database}`,
    );
    return { processes, ...peerReaders(port, clickhouse, database), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The peer's server and consumer as children (pushed to `children` at once), once both said they are ready. */
async function startPeerProcesses(peerEnv: Record<string, string>, children: ChildProcess[]) {
  const start = (file: string) => {
    const child = spawn(serviceNode, ['--import', 'tsx', file], {
      env: { ...process.env, ...peerEnv },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    return child;
  };
  const started = [start('bench/peer/server.ts'), start('bench/peer/consumer.ts')] as const;
  await Promise.all(
    started.map(
      (child) =>
        new Promise((resolve, reject) => {
          child.once('message', resolve);
          child.once('exit', (code) => reject(new Error(`peer process exited with ${code} before ready`)));
        }),
    ),
  );
  return started;
}

/** The load generator's target on the peer's server, the count of rows stored and when each request's were. */
function peerReaders(port: number, clickhouse: ClickHouseClient, database: string) {
  // Listings accepted so far, over every phase: what is stored once the peer has drained.
  let acceptedSoFar = 0;
  const target = () =>
    loadTarget(async () => {
      const response = await fetch(`http://127.0.0.1:${port}/listings`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: nextListingsBody('Stream bench peer', { withAddress: true }),
      });
      const json = (await response.json()) as { request_id?: string; accepted?: number };
      if (response.status !== 201) return { accepted: 0 };
      acceptedSoFar += json.accepted ?? 0;
      return { id: json.request_id, accepted: json.accepted ?? 0 };
    });
  const storedCount = async () => {
    const result = await clickhouse.query({
      query: 'SELECT count() AS c FROM {db:Identifier}.{table:Identifier}',
      query_params: { db: database, table: PEER_TABLE },
      format: 'JSONEachRow',
    });
    return Number(((await result.json()) as { c: string }[])[0]?.c ?? 0);
  };
  /** When each request's last row was stored (the insert's server time), by request id. */
  const storedAt = async (posted: Map<string, number>) => {
    const result = await clickhouse.query({
      query: `SELECT request_id, toUnixTimestamp64Milli(max(stored_at)) AS at
              FROM {db:Identifier}.{table:Identifier} GROUP BY request_id`,
      query_params: { db: database, table: PEER_TABLE },
      format: 'JSONEachRow',
    });
    const rows = (await result.json()) as { request_id: string; at: string }[];
    return new Map(rows.filter((r) => posted.has(r.request_id)).map((r) => [r.request_id, Number(r.at)]));
  };
  return { target, storedCount, storedAt, acceptedSoFar: () => acceptedSoFar };
}
