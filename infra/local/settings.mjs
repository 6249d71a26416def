// Settings of one local stack instance, read from the environment once.
// Dependency-free on purpose: this runs before `npm ci`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_USER, clickhouseNodes } from './clickhouse-config.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function port(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new Error(`${name} must be a TCP port (1-65535), got "${raw}"`);
  }
  return value;
}

function positiveInt(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** A listener port that may also be 0 (any free port), as the services' metrics ports may. */
function listenPort(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new Error(`${name} must be a TCP port (0-65535, 0: any free one), got "${raw}"`);
  }
  return value;
}

function topology(env) {
  const raw = env.RLS_TOPOLOGY || 'single';
  if (raw !== 'single' && raw !== 'cluster')
    throw new Error(`RLS_TOPOLOGY must be "single" or "cluster", got "${raw}"`);
  return raw;
}

const KAFKA_NODES = 3;
const REDIS_NODES = 6;

/**
 * Kafka nodes: one in the single topology, three in the cluster one (broker + KRaft controller
 * each). Cluster brokers take KAFKA_PORT, +1, +2, so the single topology's controller default
 * (base+93 = KAFKA_PORT+1) cannot be theirs: cluster controllers default to KAFKA_PORT+3 … +5
 * (or KAFKA_CONTROLLER_PORT … +2 when set).
 */
function kafkaNodes(env, kind, port, base) {
  const explicit = env.KAFKA_CONTROLLER_PORT !== undefined && env.KAFKA_CONTROLLER_PORT !== '';
  if (kind === 'single') {
    return [{ id: 1, port, controllerPort: explicit ? portOf(env, 'KAFKA_CONTROLLER_PORT') : base + 93 }];
  }
  const firstController = explicit ? portOf(env, 'KAFKA_CONTROLLER_PORT') : port + KAFKA_NODES;
  const nodes = Array.from({ length: KAFKA_NODES }, (_, i) => ({
    id: i + 1,
    port: port + i,
    controllerPort: firstController + i,
  }));
  const all = nodes.flatMap((n) => [n.port, n.controllerPort]);
  if (new Set(all).size !== all.length || Math.max(...all) > 65535)
    throw new Error(
      `KAFKA_PORT ${port} and KAFKA_CONTROLLER_PORT ${firstController} overlap or overflow: ` +
        `the cluster topology uses ${KAFKA_NODES} consecutive ports from each`,
    );
  return nodes;
}

function shardCount(env, kind) {
  const shards = positiveInt(env, 'CLICKHOUSE_SHARDS', kind === 'cluster' ? 2 : 1);
  if (shards > 4) throw new Error(`CLICKHOUSE_SHARDS must be 1-4, got ${shards}`);
  return shards;
}

function portOf(env, name) {
  return port(env, name, 0);
}

/**
 * The environment the launcher was started with, for the processes it starts to inherit (with
 * their own variables on top). The launcher's own settings come from readSettings and `launcher`.
 */
export function inheritedEnvironment() {
  return process.env;
}

/** Variables of the launcher itself, whichever instance it runs (read once, when it loads). */
export const launcher = readLauncher(process.env);

function readLauncher(env) {
  return {
    /** Extra node flags for the services, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" under a benchmark. */
    nodeFlags: (env.RLS_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    /** With it, /healthz names what is not ready yet while the launcher waits (docs/operations.md, "Health endpoints"). */
    operatorToken: env.OPERATOR_TOKEN || undefined,
    /** `npm test`: leave the single-topology stack running afterwards. */
    keepStack: env.RLS_KEEP_STACK === '1',
    /** `npm test`: what the services under test get (the test defaults apply when unset). */
    outboundAllowCidrs: env.OUTBOUND_ALLOW_CIDRS,
    webhookRetryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_MS,
  };
}

/** Path of a server's pid file: `<stateDir>/pids/<component>-<n>.pid` (external tools kill by it). */
export function pidFile(settings, component, n = 1) {
  return path.join(settings.stateDir, 'pids', `${component}-${n}.pid`);
}

/**
 * Ports default to a base (18000 for `npm start`, 28000 for `npm test`) plus a fixed offset per
 * component, so a second instance only needs RLS_PORT_BASE (or the individual *_PORT variables).
 */
export function readSettings(env = process.env, { profile = 'start' } = {}) {
  const base = port(env, 'RLS_PORT_BASE', profile === 'test' ? 28000 : 18000);
  const defaultState = profile === 'test' ? '.local/test' : '.local';
  const stateDir = path.resolve(repoRoot, env.RLS_STATE_DIR || defaultState);
  const kind = topology(env);
  const kafkaPort = port(env, 'KAFKA_PORT', base + 92);
  const redisPort = port(env, 'REDIS_PORT', base + 379);
  const apiPort = port(env, 'PORT', profile === 'test' ? base + 80 : 8080);
  const kafkaNodeList = kafkaNodes(env, kind, kafkaPort, base);
  const redisPorts = Array.from({ length: kind === 'cluster' ? REDIS_NODES : 1 }, (_, i) => redisPort + i);
  if (redisPorts.at(-1) > 65535)
    throw new Error(`REDIS_PORT ${redisPort}: the cluster needs ${REDIS_NODES} ports`);
  return {
    profile,
    topology: kind,
    portBase: base,
    stateDir,
    // Downloads (Maven jars) are shared by all instances of one checkout.
    cacheDir: path.resolve(repoRoot, env.RLS_CACHE_DIR || '.local/cache'),
    logDir: path.join(stateDir, 'logs'),
    port: apiPort,
    // The /metrics listeners of the stream worker and the image process it starts.
    streamMetricsPort: listenPort(env, 'STREAM_METRICS_PORT', apiPort + 10),
    imagesMetricsPort: listenPort(env, 'IMAGES_METRICS_PORT', apiPort + 11),
    kafka: {
      external: env.KAFKA_BROKERS || '',
      port: kafkaPort,
      controllerPort: kafkaNodeList[0].controllerPort,
      nodes: kafkaNodeList,
      version: env.KAFKA_VERSION || '4.1.1',
      // Three cluster nodes share the machine: a smaller heap each (~150-220 MB resident at 256).
      heapMb: positiveInt(env, 'KAFKA_HEAP_MB', kind === 'cluster' ? 256 : 384),
    },
    clickhouse: {
      external: env.CLICKHOUSE_URL || '',
      httpPort: port(env, 'CLICKHOUSE_HTTP_PORT', base + 123),
      tcpPort: port(env, 'CLICKHOUSE_TCP_PORT', base + 900),
      // Shard servers on consecutive ports (2 in the cluster topology); 1–4, e.g. 2 shards beside a
      // single Kafka and Redis to work on ClickHouse alone.
      shards: shardCount(env, kind),
      // `analyst`: read-only login for data engineers (docs/warehouse.md, "Connecting").
      analystPassword: env.CLICKHOUSE_ANALYST_PASSWORD || 'analyst',
    },
    redis: {
      external: env.REDIS_URL || '',
      port: redisPort,
      ports: redisPorts,
      maxmemoryMb: positiveInt(env, 'REDIS_MAXMEMORY_MB', 4096),
    },
  };
}

// Redis Cluster's bus between nodes: each node's port + 10000 (Redis's default cluster-port).
const REDIS_CLUSTER_BUS_OFFSET = 10_000;

/**
 * Every port this stack listens on (components it runs itself, the API and the workers' metrics
 * listeners), internal ones included: the services' outbound calls never reach them
 * (OUTBOUND_PROTECTED_PORTS, common/outbound/service-ports.ts), whatever OUTBOUND_ALLOW_CIDRS opens.
 * test/unit/stack-ports.test.ts fails when a port setting is added here but not listed.
 */
export function stackPorts(settings) {
  const ports = [settings.port, settings.streamMetricsPort, settings.imagesMetricsPort];
  if (!settings.kafka.external)
    for (const node of settings.kafka.nodes) ports.push(node.port, node.controllerPort);
  if (!settings.clickhouse.external)
    for (const node of clickhouseNodes(settings))
      ports.push(node.httpPort, node.tcpPort, node.internalTcpPort);
  if (!settings.redis.external) {
    ports.push(...settings.redis.ports);
    if (settings.topology === 'cluster')
      ports.push(...settings.redis.ports.map((port) => port + REDIS_CLUSTER_BUS_OFFSET));
  }
  return [...new Set(ports.filter((port) => port > 0))].sort((a, b) => a - b);
}

/** Connection URLs of the stack, as the services read them. */
export function serviceEnv(settings) {
  const cluster = settings.topology === 'cluster';
  return {
    KAFKA_BROKERS:
      settings.kafka.external || settings.kafka.nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    CLICKHOUSE_URL: settings.clickhouse.external || `http://127.0.0.1:${settings.clickhouse.httpPort}`,
    // Every shard server (/healthz names one that is down), as clickhouse.mjs numbers them.
    ...(settings.clickhouse.shards > 1 && !settings.clickhouse.external
      ? {
          CLICKHOUSE_NODES: Array.from(
            { length: settings.clickhouse.shards },
            (_, i) => `http://127.0.0.1:${settings.clickhouse.httpPort + i}`,
          ).join(','),
        }
      : {}),
    // The analytics API reads as its own user of our ClickHouse (clickhouse-config.mjs).
    ...(settings.clickhouse.external ? {} : { CLICKHOUSE_ANALYTICS_USER: API_USER }),
    REDIS_URL: settings.redis.external || `redis://127.0.0.1:${settings.redis.port}`,
    // The services use ioredis's Cluster client when this is set (seed nodes; it discovers the rest).
    ...(cluster && !settings.redis.external
      ? { REDIS_CLUSTER_NODES: settings.redis.ports.map((p) => `127.0.0.1:${p}`).join(',') }
      : {}),
    RLS_TOPOLOGY: settings.topology,
    PORT: String(settings.port),
    OUTBOUND_PROTECTED_PORTS: stackPorts(settings).join(','),
    RLS_STATE_DIR: settings.stateDir,
  };
}
