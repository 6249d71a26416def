// A real single-node Kafka broker (KRaft, combined broker+controller) run from the Apache Kafka
// jars on Maven Central, since no distribution tarball can be downloaded here.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './settings.mjs';
import {
  aptInstall,
  commandExists,
  isAlive,
  log,
  readPid,
  startDaemon,
  stopPid,
  tcpOpen,
  waitUntil,
} from './processes.mjs';

function paths(settings) {
  const dir = path.join(settings.stateDir, 'kafka');
  const libs = path.join(settings.cacheDir, `kafka-${settings.kafka.version}`, 'libs');
  return {
    dir,
    data: path.join(dir, 'data'),
    props: path.join(dir, 'server.properties'),
    clusterId: path.join(dir, 'cluster-id'),
    pid: path.join(dir, 'kafka.pid'),
    log: path.join(settings.logDir, 'kafka.log'),
    libs,
    libsReady: path.join(libs, '.complete'),
    pom: path.join(repoRoot, 'infra/local/kafka/pom.xml'),
    log4j: path.join(repoRoot, 'infra/local/kafka/log4j.properties'),
  };
}

function ensureJars(settings, p) {
  if (fs.existsSync(p.libsReady)) return;
  if (!commandExists('java')) aptInstall('kafka', ['openjdk-17-jre-headless']);
  if (!commandExists('mvn')) aptInstall('kafka', ['maven']);
  log('kafka', `downloading Kafka ${settings.kafka.version} jars from Maven Central`);
  const t0 = Date.now();
  execFileSync(
    'mvn',
    [
      '-q',
      '-B',
      '-f',
      p.pom,
      'dependency:copy-dependencies',
      // runtime, not compile: the broker's runtime-scoped modules would be dropped otherwise.
      '-DincludeScope=runtime',
      `-DoutputDirectory=${p.libs}`,
      `-Dmaven.repo.local=${path.join(settings.cacheDir, 'm2')}`,
      `-Dkafka.version=${settings.kafka.version}`,
    ],
    { stdio: 'inherit' },
  );
  fs.writeFileSync(p.libsReady, new Date().toISOString());
  log('kafka', `jars ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

function serverProperties(settings, p) {
  const { port, controllerPort } = settings.kafka;
  return [
    'process.roles=broker,controller',
    'node.id=1',
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
    'min.insync.replicas=1',
    'default.replication.factor=1',
    // Consumers join at once instead of waiting 3 s for more members.
    'group.initial.rebalance.delay.ms=0',
    // Topics are created from infra/kafka/topics.json only.
    'auto.create.topics.enable=false',
    'num.partitions=6',
    'log.retention.hours=168',
    'num.network.threads=2',
    'num.io.threads=4',
    '',
  ].join('\n');
}

function java(settings, p, mainClass, args) {
  const heap = settings.kafka.heapMb;
  return [
    `-Xms${Math.min(heap, 128)}m`,
    `-Xmx${heap}m`,
    // Small, quiet JVM for a 2-core machine: serial GC, few compiler threads.
    '-XX:+UseSerialGC',
    '-XX:CICompilerCount=2',
    '-XX:MaxMetaspaceSize=128m',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${p.log4j}`,
    '-cp',
    `${p.libs}/*`,
    mainClass,
    ...args,
  ];
}

/** Broker metadata via kafkajs: the broker is ready when it answers describeCluster. */
async function brokerAnswers(port) {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({
    brokers: [`127.0.0.1:${port}`],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
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

export async function startKafka(settings) {
  if (settings.kafka.external) return { brokers: settings.kafka.external, startedPid: 0 };
  const p = paths(settings);
  const { port, controllerPort } = settings.kafka;
  const brokers = `127.0.0.1:${port}`;
  if (isAlive(readPid(p.pid)) && (await brokerAnswers(port))) {
    log('kafka', `reusing running broker on ${port}`);
    return { brokers, startedPid: 0 };
  }
  for (const taken of [port, controllerPort]) {
    if (await tcpOpen(taken)) throw new Error(`kafka: port ${taken} is already in use by another process`);
  }
  ensureJars(settings, p);
  fs.mkdirSync(p.data, { recursive: true });
  fs.mkdirSync(settings.logDir, { recursive: true });
  fs.writeFileSync(p.props, serverProperties(settings, p));
  if (!fs.existsSync(p.clusterId)) fs.writeFileSync(p.clusterId, clusterIdFromUuid(randomUUID()));
  if (!fs.existsSync(path.join(p.data, 'meta.properties'))) {
    const clusterId = fs.readFileSync(p.clusterId, 'utf8').trim();
    execFileSync(
      'java',
      java(settings, p, 'kafka.tools.StorageTool', [
        'format',
        '-t',
        clusterId,
        '-c',
        p.props,
        '--ignore-formatted',
      ]),
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  const pid = startDaemon({
    component: 'kafka',
    command: 'java',
    args: java(settings, p, 'kafka.Kafka', [p.props]),
    logFile: p.log,
    pidFile: p.pid,
  });
  await waitUntil('kafka', () => brokerAnswers(port), {
    timeoutMs: 90_000,
    intervalMs: 300,
    logFile: p.log,
    pid,
  });
  return { brokers, startedPid: pid };
}

export async function stopKafka(settings) {
  await stopPid('kafka', paths(settings).pid, { timeoutMs: 30_000 });
}

/** Kafka cluster ids are 16 bytes in URL-safe base64 without padding. */
function clusterIdFromUuid(uuid) {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');
}
