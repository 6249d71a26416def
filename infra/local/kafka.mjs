// Real Kafka brokers (KRaft, combined broker+controller): one node, or three in the cluster
// topology, run from the Apache Kafka jars on Maven Central, since no distribution tarball can be
// downloaded here.
// Kafka 3.x and 4.x both work (settings.kafka.version); they differ only in the log4j binding.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { inheritedEnvironment, pidFile, repoRoot } from './settings.mjs';
import { ensureMavenJars } from './maven.mjs';
import { isAlive, log, readPid, runCommand, startDaemon, stopPid, tcpOpen, waitUntil } from './processes.mjs';

/** Jars and logging flags, shared by every node of the stack. */
function jarPaths(settings) {
  const libs = path.join(settings.cacheDir, `kafka-${settings.kafka.version}`, 'libs');
  const major = Number(settings.kafka.version.split('.')[0]);
  const conf = path.join(repoRoot, 'infra/local/kafka');
  return {
    libs,
    pom: path.join(conf, 'pom.xml'),
    // 4.x logs through log4j2, 3.x through reload4j (log4j 1.x API): see pom.xml profiles.
    profile: major >= 4 ? 'kafka4' : 'kafka3',
    logFlags:
      major >= 4
        ? [
            `-Dlog4j2.configurationFile=${path.join(conf, 'log4j2.properties')}`,
            // log4j2's own shutdown hook would stop logging while Kafka is still shutting down.
            '-Dlog4j2.shutdownHookEnabled=false',
          ]
        : [`-Dlog4j.configuration=file:${path.join(conf, 'log4j.properties')}`],
  };
}

/** One node's files: `kafka/` in the single topology, `kafka-<n>/` for each cluster node. */
function paths(settings, node = settings.kafka.nodes[0]) {
  const cluster = settings.topology === 'cluster';
  const dir = path.join(settings.stateDir, cluster ? `kafka-${node.id}` : 'kafka');
  return {
    ...jarPaths(settings),
    dir,
    data: path.join(dir, 'data'),
    props: path.join(dir, 'server.properties'),
    // One id for the whole cluster: every node's storage is formatted with it.
    clusterId: path.join(settings.stateDir, cluster ? 'kafka-cluster-id' : 'kafka/cluster-id'),
    pid: pidFile(settings, 'kafka', node.id),
    log: path.join(settings.logDir, cluster ? `kafka-${node.id}.log` : 'kafka.log'),
  };
}

/**
 * Copies the broker jars into <cacheDir>/kafka-<version>/libs once (maven.mjs).
 * Returns how long the download took (0 when cached).
 */
export function ensureKafkaJars(settings) {
  const p = jarPaths(settings);
  return ensureMavenJars({
    component: 'kafka',
    what: `Kafka ${settings.kafka.version}`,
    pom: p.pom,
    libs: p.libs,
    cacheDir: settings.cacheDir,
    selector: `${settings.kafka.version} ${p.profile} `,
    mavenArgs: [`-P${p.profile}`, `-Dkafka.version=${settings.kafka.version}`],
    hint: ' (is that version, with all its modules, on Maven Central?)',
  });
}

function serverProperties(settings, node, p) {
  const { nodes } = settings.kafka;
  // Replication of internal topics and the default for ours: 1 on one node, 3 (at least 2 in
  // sync to acknowledge a write) on the cluster.
  const replicas = Math.min(3, nodes.length);
  const minIsr = replicas >= 3 ? 2 : 1;
  return [
    'process.roles=broker,controller',
    `node.id=${node.id}`,
    // Static quorum: so StorageTool format needs no --standalone.
    `controller.quorum.voters=${nodes.map((n) => `${n.id}@127.0.0.1:${n.controllerPort}`).join(',')}`,
    `listeners=PLAINTEXT://127.0.0.1:${node.port},CONTROLLER://127.0.0.1:${node.controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${node.port}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${p.data}`,
    `offsets.topic.replication.factor=${replicas}`,
    `transaction.state.log.replication.factor=${replicas}`,
    `transaction.state.log.min.isr=${minIsr}`,
    `share.coordinator.state.topic.replication.factor=${replicas}`,
    `share.coordinator.state.topic.min.isr=${minIsr}`,
    `min.insync.replicas=${minIsr}`,
    `default.replication.factor=${replicas}`,
    ...(nodes.length > 1
      ? [
          // A dead broker is fenced (its partitions get new leaders) after 3 s instead of 9 s:
          // sends stall ~2-4 s per failover instead of 8-12 s. Heartbeats must come well within it.
          'broker.session.timeout.ms=3000',
          'broker.heartbeat.interval.ms=1000',
        ]
      : []),
    // Consumers join at once instead of waiting 3 s for more members.
    'group.initial.rebalance.delay.ms=0',
    // Topics are created from infra/kafka/topics.json only.
    'auto.create.topics.enable=false',
    'num.partitions=6',
    'log.retention.hours=168',
    // Few threads: a 2-core dev machine, one client at a time.
    'num.network.threads=2',
    'num.io.threads=2',
    'background.threads=2',
    'num.recovery.threads.per.data.dir=1',
    // The log cleaner (for compacted __consumer_offsets) zero-fills this buffer on the heap at
    // startup: 128 MB by default, most of a small broker's RSS. 8 MB is plenty locally.
    'log.cleaner.dedupe.buffer.size=8388608',
    '',
  ].join('\n');
}

function javaArgs(settings, p, mainClass, args) {
  const heap = settings.kafka.heapMb;
  return [
    // A small initial heap that grows up to heapMb on demand: with -Xms = -Xmx the serial GC's
    // young generation alone is a third of the heap, all of it resident after a while (measured:
    // ~65 MB more RSS right after start with 384 MB).
    `-Xms${Math.min(64, heap)}m`,
    `-Xmx${heap}m`,
    // Small, quiet JVM for a 2-core machine: serial GC (no GC threads), C1 only (starts faster,
    // less code cache and compiler memory; peak throughput is irrelevant locally).
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-XX:ReservedCodeCacheSize=64m',
    '-XX:MaxMetaspaceSize=128m',
    '-Djava.awt.headless=true',
    ...p.logFlags,
    '-cp',
    `${p.libs}/*`,
    mainClass,
    ...args,
  ];
}

// glibc's per-thread malloc arenas inflate a JVM's RSS for nothing.
const javaEnv = () => ({ ...inheritedEnvironment(), MALLOC_ARENA_MAX: '2' });

/** Broker metadata via kafkajs: the broker is ready when it answers describeCluster. */
async function brokerAnswers(port) {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({
    clientId: 'rls-kafka-probe',
    brokers: [`127.0.0.1:${port}`],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 3000,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0 && cluster.controller !== null;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** A pid file can outlive its process and the pid be reused: check it is really our broker. */
function isOurBroker(pid, p) {
  if (!isAlive(pid)) return false;
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('kafka.Kafka') && cmdline.includes(p.props);
  } catch {
    return false;
  }
}

/**
 * Starts every node of the topology that is not running (all of them on a fresh state directory,
 * one after a SIGKILL) and waits until each answers; running nodes are left alone. A node that was
 * away rejoins with its own storage. On failure, stops the nodes this call started.
 */
export async function startKafka(settings) {
  const brokers = settings.kafka.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  if (settings.kafka.external) return { brokers: settings.kafka.external, startedPid: 0, startedNodes: [] };
  const missing = [];
  for (const node of settings.kafka.nodes) {
    const p = paths(settings, node);
    const running = readPid(p.pid);
    if (isOurBroker(running, p)) continue;
    fs.rmSync(p.pid, { force: true }); // stale
    for (const taken of [node.port, node.controllerPort]) {
      if (await tcpOpen(taken)) {
        throw new Error(
          `kafka: port ${taken} is already in use by another process ` +
            '(set KAFKA_PORT / KAFKA_CONTROLLER_PORT or RLS_PORT_BASE, or KAFKA_BROKERS to use an existing broker)',
        );
      }
    }
    missing.push(node);
  }
  if (missing.length) await ensureKafkaJars(settings);
  const clusterId = readClusterId(settings);
  const started = [];
  try {
    // Format first, all nodes, then start them together: a quorum needs a majority up at once.
    await Promise.all(missing.map((node) => formatNode(settings, node, clusterId)));
    for (const node of missing) {
      const p = paths(settings, node);
      const pid = startDaemon({
        component: nodeName(settings, node),
        command: 'java',
        args: javaArgs(settings, p, 'kafka.Kafka', [p.props]),
        logFile: p.log,
        pidFile: p.pid,
        env: javaEnv(),
      });
      started.push({ node, pid });
    }
    await Promise.all(
      settings.kafka.nodes.map((node) => {
        const p = paths(settings, node);
        const own = started.find((s) => s.node === node);
        return waitUntil(nodeName(settings, node), () => brokerAnswers(node.port), {
          timeoutMs: own ? 90_000 : 60_000,
          intervalMs: 250,
          logFile: p.log,
          pid: own?.pid ?? readPid(p.pid),
        }).then(() => {
          if (!own)
            log(nodeName(settings, node), `reusing running broker pid ${readPid(p.pid)} on ${node.port}`);
        });
      }),
    );
  } catch (error) {
    await stopKafka(
      settings,
      started.map((s) => s.node.id),
    );
    throw error;
  }
  return { brokers, startedPid: started[0]?.pid ?? 0, startedNodes: started.map((s) => s.node.id) };
}

function nodeName(settings, node) {
  return settings.topology === 'cluster' ? `kafka-${node.id}` : 'kafka';
}

/** The stack's cluster id, drawn once by Kafka's rules and persisted (storage keeps its identity). */
function readClusterId(settings) {
  const file = paths(settings).clusterId;
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, kafkaClusterId());
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * Writes the node's properties (regenerated on every start, so port changes apply) and formats
 * its storage once. `--cluster-id=<id>` in one argument: an id of an older state directory may
 * begin with `-`, which the tool's parser would read as an option after a separate `-t`.
 */
export async function formatNode(settings, node, clusterId) {
  const p = paths(settings, node);
  fs.mkdirSync(p.data, { recursive: true });
  fs.mkdirSync(settings.logDir, { recursive: true });
  fs.mkdirSync(path.dirname(p.pid), { recursive: true });
  fs.writeFileSync(p.props, serverProperties(settings, node, p));
  if (fs.existsSync(path.join(p.data, 'meta.properties'))) return;
  await runCommand(
    'java',
    javaArgs(settings, p, 'kafka.tools.StorageTool', [
      'format',
      `--cluster-id=${clusterId}`,
      '-c',
      p.props,
      '--ignore-formatted',
    ]),
    { env: javaEnv(), inheritStderr: true },
  );
}

/**
 * Stops the given nodes (default: all) together. One at a time would leave the last one waiting
 * 5 minutes for a controlled shutdown that needs the quorum the others took with them.
 */
export async function stopKafka(settings, nodeIds) {
  if (settings.kafka.external) return;
  const nodes = settings.kafka.nodes.filter((n) => !nodeIds || nodeIds.includes(n.id));
  // SIGTERM runs Kafka's controlled shutdown (a few seconds); SIGKILL only after 30 s.
  await Promise.all(
    nodes.map((node) => {
      const p = paths(settings, node);
      if (!isOurBroker(readPid(p.pid), p)) {
        fs.rmSync(p.pid, { force: true }); // never signal a pid that now belongs to someone else
        return undefined;
      }
      return stopPid(nodeName(settings, node), p.pid, { timeoutMs: 30_000 });
    }),
  );
}

/**
 * A cluster id as Kafka's `Uuid.randomUuid()` makes one: 16 random bytes in URL-safe base64
 * without padding, drawn again when the text would begin with `-` (so a command line never reads
 * it as an option).
 */
export function kafkaClusterId(draw = () => randomBytes(16)) {
  for (;;) {
    const id = Buffer.from(draw()).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
