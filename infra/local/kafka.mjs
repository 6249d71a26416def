// A real single-node Kafka broker (KRaft, combined broker+controller) run from the Apache Kafka
// jars on Maven Central, since no distribution tarball can be downloaded here.
// Kafka 3.x and 4.x both work (settings.kafka.version); they differ only in the log4j binding.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './settings.mjs';
import {
  aptInstall,
  commandExists,
  isAlive,
  log,
  readPid,
  runCommand,
  startDaemon,
  stopPid,
  tcpOpen,
  waitUntil,
} from './processes.mjs';

function paths(settings) {
  const dir = path.join(settings.stateDir, 'kafka');
  const libs = path.join(settings.cacheDir, `kafka-${settings.kafka.version}`, 'libs');
  const major = Number(settings.kafka.version.split('.')[0]);
  const conf = path.join(repoRoot, 'infra/local/kafka');
  return {
    dir,
    data: path.join(dir, 'data'),
    props: path.join(dir, 'server.properties'),
    clusterId: path.join(dir, 'cluster-id'),
    pid: path.join(dir, 'kafka.pid'),
    log: path.join(settings.logDir, 'kafka.log'),
    libs,
    libsReady: path.join(libs, '.complete'),
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

/**
 * Copies the broker jars into <cacheDir>/kafka-<version>/libs once. The marker holds a hash of the
 * pom, so editing the pom re-resolves; otherwise re-runs are instant.
 * Returns how long the download took (0 when cached).
 */
export async function ensureKafkaJars(settings) {
  const p = paths(settings);
  if (!commandExists('java')) aptInstall('kafka', ['openjdk-17-jre-headless']);
  const stamp = `${settings.kafka.version} ${p.profile} ${createHash('sha256').update(fs.readFileSync(p.pom)).digest('hex')}`;
  if (fs.existsSync(p.libsReady) && fs.readFileSync(p.libsReady, 'utf8').trim() === stamp) return 0;
  if (!commandExists('mvn')) aptInstall('kafka', ['maven']);
  log('kafka', `downloading Kafka ${settings.kafka.version} jars from Maven Central`);
  const t0 = Date.now();
  fs.rmSync(p.libs, { recursive: true, force: true }); // no stale jars from an earlier pom
  const args = [
    '-q',
    '-B',
    '-f',
    p.pom,
    'dependency:copy-dependencies',
    `-P${p.profile}`,
    // runtime, not compile: the broker's runtime-scoped modules would be dropped otherwise.
    '-DincludeScope=runtime',
    `-DoutputDirectory=${p.libs}`,
    `-Dmaven.repo.local=${path.join(settings.cacheDir, 'm2')}`,
    `-Dkafka.version=${settings.kafka.version}`,
  ];
  try {
    // Output captured: with -q it is only stray ANSI codes, unless it fails.
    await runCommand('mvn', args);
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    const errors = output
      .split('\n')
      .filter((line) => line.includes('[ERROR] Failed'))
      .slice(0, 1)
      .join('\n');
    throw new Error(
      `kafka: Maven could not download Kafka ${settings.kafka.version} jars ` +
        `(is that version, with all its modules, on Maven Central?):\n${errors || output.slice(-2000)}\nCommand: mvn ${args.join(' ')}`,
    );
  }
  fs.writeFileSync(p.libsReady, `${stamp}\n`);
  const ms = Date.now() - t0;
  log('kafka', `jars ready in ${(ms / 1000).toFixed(1)} s`);
  return ms;
}

function serverProperties(settings, p) {
  const { port, controllerPort } = settings.kafka;
  return [
    'process.roles=broker,controller',
    'node.id=1',
    // Static quorum: so StorageTool format needs no --standalone.
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${p.data}`,
    // One node: internal topics cannot be replicated.
    'offsets.topic.replication.factor=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'min.insync.replicas=1',
    'default.replication.factor=1',
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
const javaEnv = () => ({ ...process.env, MALLOC_ARENA_MAX: '2' });

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

export async function startKafka(settings) {
  if (settings.kafka.external) return { brokers: settings.kafka.external, startedPid: 0 };
  const p = paths(settings);
  const { port, controllerPort } = settings.kafka;
  const brokers = `127.0.0.1:${port}`;
  const running = readPid(p.pid);
  if (isOurBroker(running, p)) {
    // Ours, maybe still starting (e.g. a concurrent start): wait for it rather than fail on the port.
    await waitUntil('kafka', () => brokerAnswers(port), {
      timeoutMs: 60_000,
      intervalMs: 300,
      logFile: p.log,
      pid: running,
    });
    log('kafka', `reusing running broker pid ${running} on ${port}`);
    return { brokers, startedPid: 0 };
  }
  for (const taken of [port, controllerPort]) {
    if (await tcpOpen(taken)) {
      throw new Error(
        `kafka: port ${taken} is already in use by another process ` +
          '(set KAFKA_PORT / KAFKA_CONTROLLER_PORT or RLS_PORT_BASE, or KAFKA_BROKERS to use an existing broker)',
      );
    }
  }
  await ensureKafkaJars(settings);
  fs.mkdirSync(p.data, { recursive: true });
  fs.mkdirSync(settings.logDir, { recursive: true });
  fs.writeFileSync(p.props, serverProperties(settings, p));
  // The cluster id is persisted so the storage is formatted once and keeps its identity.
  if (!fs.existsSync(p.clusterId)) fs.writeFileSync(p.clusterId, clusterIdFromUuid(randomUUID()));
  if (!fs.existsSync(path.join(p.data, 'meta.properties'))) {
    const clusterId = fs.readFileSync(p.clusterId, 'utf8').trim();
    await runCommand(
      'java',
      javaArgs(settings, p, 'kafka.tools.StorageTool', [
        'format',
        '-t',
        clusterId,
        '-c',
        p.props,
        '--ignore-formatted',
      ]),
      { env: javaEnv(), inheritStderr: true },
    );
  }
  const pid = startDaemon({
    component: 'kafka',
    command: 'java',
    args: javaArgs(settings, p, 'kafka.Kafka', [p.props]),
    logFile: p.log,
    pidFile: p.pid,
    env: javaEnv(),
  });
  await waitUntil('kafka', () => brokerAnswers(port), {
    timeoutMs: 90_000,
    intervalMs: 250,
    logFile: p.log,
    pid,
  });
  return { brokers, startedPid: pid };
}

export async function stopKafka(settings) {
  if (settings.kafka.external) return;
  // SIGTERM runs Kafka's controlled shutdown (a few seconds); SIGKILL only after 30 s.
  await stopPid('kafka', paths(settings).pid, { timeoutMs: 30_000 });
}

/** Kafka cluster ids are 16 bytes in URL-safe base64 without padding. */
function clusterIdFromUuid(uuid) {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');
}
