// Redis for keys, limits, batches and webhooks: Debian's redis-server as our own process (one, or
// a Redis Cluster of 3 masters + 3 replicas in the cluster topology), config generated under the
// state directory, AOF on (keys and webhooks must survive restarts).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
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
import { pidFile } from './settings.mjs';

const COMPONENT = 'redis';

/** Node `n` (1-based): `redis/` in the single topology, `redis-<n>/` in the cluster one. */
function paths(settings, n = 1) {
  const cluster = settings.topology === 'cluster';
  const dir = path.join(settings.stateDir, cluster ? `redis-${n}` : 'redis');
  return {
    dir,
    conf: path.join(dir, 'redis.conf'),
    pid: pidFile(settings, 'redis', n),
    log: path.join(settings.logDir, cluster ? `redis-${n}.log` : 'redis.log'),
    name: cluster ? `redis-${n}` : COMPONENT,
  };
}

function redisConf(port, dir, maxmemoryMb, cluster) {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    'protected-mode yes', // no password, but loopback-only anyway
    'daemonize no', // startDaemon detaches it and owns the PID file
    'logfile ""', // stdout, i.e. redis.log
    'loglevel notice',
    `dir ${dir}`,
    // AOF, fsync once a second: a crash loses at most ~1 s of writes; SIGTERM flushes it fully.
    'appendonly yes',
    'appendfsync everysec',
    // RDB snapshots off: the AOF is the one source of truth (rewrites still use an RDB preamble,
    // so it stays compact), and no periodic fork + full dump competes for RAM and disk.
    'save ""',
    ...liveDirectives(maxmemoryMb).map(([name, value]) => `${name} ${value}`),
    // Listing owners live in 1,048,576 hashes (stream/listings/owners.ts) and views in per-account
    // buckets: up to 512 fields per hash keep the compact listpack encoding (default 128).
    'hash-max-listpack-entries 512',
    ...(cluster
      ? [
          'cluster-enabled yes',
          'cluster-config-file nodes.conf', // in `dir`: the node's identity and view of the cluster
          // A master unreachable for 3 s is failed over to its replica (~5 s until writes succeed).
          'cluster-node-timeout 3000',
          // A restarted ex-master (now a replica) syncs at once instead of after 5 s: a second
          // fault inside that window would otherwise leave its slots without a copy.
          'repl-diskless-sync-delay 0',
        ]
      : []),
    '',
  ].join('\n');
}

/**
 * A memory ceiling, and never eviction: keys, webhooks and listing owners must never silently
 * disappear. At the ceiling Redis refuses writes ("OOM command not allowed"), so requests that
 * write get 503 while reads, revocations of keys and the rest of the machine keep working — instead
 * of Redis growing until the kernel kills it (docs/scaling.md, "Redis sizing"; the daily quotas of
 * ingest/quota.ts keep any one account from getting there).
 */
function memoryDirectives(maxmemoryMb) {
  return [
    ['maxmemory', `${maxmemoryMb}mb`],
    ['maxmemory-policy', 'noeviction'],
  ];
}

/**
 * Each rewrite of the append-only file dumps the whole data set from a forked child (~10 s of CPU
 * per 550 MB here); LZF compression was a third of that CPU and saved 1 % of the file
 * (docs/decisions/0014-redis-rewrite-without-compression.md).
 */
const REWRITE_DIRECTIVES = [['rdbcompression', 'no']];

/** Directives of the config file that a running server also takes (CONFIG SET) when it is reused. */
function liveDirectives(maxmemoryMb) {
  return [...memoryDirectives(maxmemoryMb), ...REWRITE_DIRECTIVES];
}

/**
 * One RESP command on a fresh connection (no client library: the node may be in any role, or not
 * yet in a cluster); resolves with the raw reply.
 */
export function redisCommand(port, args, timeoutMs = 2000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let reply = '';
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`Redis on ${port} did not answer ${args[0]}`));
    });
    socket.once('connect', () =>
      socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`),
    );
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      const eol = reply.indexOf('\r\n');
      if (eol < 0) return;
      // A bulk string ($<length>) is complete once its bytes and their CRLF arrived.
      const complete =
        !reply.startsWith('$') ||
        Buffer.byteLength(reply) >= eol + 2 + Math.max(0, Number(reply.slice(1, eol))) + 2;
      if (complete) {
        socket.destroy();
        resolve(reply);
      }
    });
    socket.once('error', reject);
  });
}

/** `INFO <section>` or `CLUSTER INFO` as a map of its `name:value` lines. */
async function infoFields(port, args) {
  const reply = await redisCommand(port, args);
  return new Map(
    reply
      .split('\r\n')
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]),
  );
}

/**
 * Raw RESP PING, so readiness needs no client library: `pong` when serving, `loading` while Redis
 * replays its data set (`-LOADING`), null when it does not answer (yet).
 */
export function pingRedis(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let reply = '';
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(null));
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (!reply.includes('\r\n')) return;
      done(reply.startsWith('+PONG\r\n') ? 'pong' : reply.startsWith('-LOADING') ? 'loading' : null);
    });
    socket.once('error', () => done(null));
    socket.once('end', () => done(null));
  });
}

/**
 * How long a Redis that answers `-LOADING` may take to load its data set. Loading is progress, not a
 * hang: a store of the 30-day duplicate window at ~10 M listings (9.4 M keys) loaded in 18 s here
 * and then replayed its AOF tail, past the 30 s a server gets to answer at all.
 */
const LOADING_TIMEOUT_MS = 10 * 60_000;

/** Waits until Redis on `port` answers within 30 s, then until it has loaded its data set. */
export async function waitForRedis(name, port, { logFile, pid } = {}) {
  let loading = false;
  await waitUntil(
    name,
    async () => {
      const answer = await pingRedis(port);
      loading = answer === 'loading';
      return answer !== null;
    },
    { timeoutMs: 30_000, logFile, pid },
  );
  if (!loading) return;
  log(name, `loading its data set, waiting up to ${LOADING_TIMEOUT_MS / 60_000} min`);
  await waitUntil(name, async () => (await pingRedis(port)) === 'pong', {
    timeoutMs: LOADING_TIMEOUT_MS,
    intervalMs: 500,
    logFile,
    pid,
  });
}

/** True when `pid` is a redis-server serving our port (not a recycled PID). Redis rewrites its
 * process title to "redis-server 127.0.0.1:<port>", so the config path is not in cmdline. */
function isOurServer(pid, port) {
  if (!isAlive(pid)) return false;
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.startsWith('redis-server') && cmdline.includes(`:${port}`);
  } catch {
    return false;
  }
}

/**
 * Starts every node that is not running and leaves running ones alone; in the cluster topology,
 * creates the cluster on first start and waits until every node sees it whole. On failure, stops
 * the nodes this call started.
 */
export async function startRedis(settings) {
  const { ports } = settings.redis;
  const url = `redis://127.0.0.1:${settings.redis.port}`;
  if (settings.redis.external) return { url: settings.redis.external, startedPid: 0, startedNodes: [] };
  const cluster = settings.topology === 'cluster';
  const missing = [];
  const reused = [];
  for (const [i, port] of ports.entries()) {
    const p = paths(settings, i + 1);
    const running = readPid(p.pid);
    if (isOurServer(running, port)) {
      reused.push({ n: i + 1, port, pid: running });
      continue;
    }
    fs.rmSync(p.pid, { force: true }); // stale
    if (await tcpOpen(port))
      throw new Error(
        `Redis: port ${port} on 127.0.0.1 is in use by a process this stack did not start; stop it, ` +
          'or pick another port with RLS_PORT_BASE or REDIS_PORT',
      );
    missing.push({ n: i + 1, port });
  }
  if (missing.length && !commandExists('redis-server')) aptInstall(COMPONENT, ['redis-server']);
  const started = [];
  try {
    for (const { n, port } of missing) {
      const p = paths(settings, n);
      fs.mkdirSync(p.dir, { recursive: true });
      fs.writeFileSync(p.conf, redisConf(port, p.dir, settings.redis.maxmemoryMb, cluster));
      const pid = startDaemon({
        component: p.name,
        command: 'redis-server',
        args: [p.conf],
        logFile: p.log,
        pidFile: p.pid,
        cwd: p.dir,
      });
      started.push({ n, port, pid });
    }
    await Promise.all(
      [...reused, ...started].map(({ n, port, pid }) =>
        waitForRedis(paths(settings, n).name, port, { logFile: paths(settings, n).log, pid }),
      ),
    );
    for (const { n, port, pid } of reused) {
      // A server started before these directives existed (or with another REDIS_MAXMEMORY_MB) gets them now.
      for (const [name, value] of liveDirectives(settings.redis.maxmemoryMb)) {
        const reply = await redisCommand(port, ['CONFIG', 'SET', name, value]);
        if (!reply.startsWith('+OK')) throw new Error(`Redis: CONFIG SET ${name} failed: ${reply.trim()}`);
      }
      log(paths(settings, n).name, `reusing running server pid ${pid} on ${port}`);
    }
    if (cluster) await ensureCluster(settings, started);
  } catch (error) {
    await stopRedis(
      settings,
      started.map((s) => s.n),
    );
    throw error;
  }
  return { url, startedPid: started[0]?.pid ?? 0, startedNodes: started.map((s) => s.n) };
}

/**
 * Creates the Redis Cluster when no node has slots yet (a fresh state directory), then waits until
 * every node reports the cluster ok and every replica this call started has synced from its master
 * (`master_link_status:up`), so the next fault does not find its slots without a copy.
 */
async function ensureCluster(settings, started) {
  const { ports } = settings.redis;
  const assigned = await Promise.all(
    ports.map(async (port) =>
      Number((await infoFields(port, ['CLUSTER', 'INFO'])).get('cluster_slots_assigned')),
    ),
  );
  if (assigned.every((slots) => slots === 0)) {
    log(COMPONENT, `creating the cluster (3 masters, 3 replicas) on ports ${ports[0]}-${ports.at(-1)}`);
    await runCommand('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
  }
  const t0 = Date.now();
  await Promise.all(
    ports.map((port, i) =>
      waitUntil(
        paths(settings, i + 1).name,
        async () => {
          if ((await infoFields(port, ['CLUSTER', 'INFO'])).get('cluster_state') !== 'ok') return false;
          if (!started.some((s) => s.port === port)) return true;
          const replication = await infoFields(port, ['INFO', 'replication']);
          return replication.get('role') === 'master' || replication.get('master_link_status') === 'up';
        },
        { timeoutMs: 60_000, intervalMs: 250, logFile: paths(settings, i + 1).log },
      ),
    ),
  );
  log(
    COMPONENT,
    `cluster ok on ${ports.length} nodes (${((Date.now() - t0) / 1000).toFixed(1)} s after create/start)`,
  );
}

/** Each node's port and the directory holding its data (AOF, RDB dump, nodes.conf). */
export function redisDirectories(settings) {
  return settings.redis.ports.map((port, i) => ({ n: i + 1, port, dir: paths(settings, i + 1).dir }));
}

/** Stops the given nodes (default: all) together; SIGTERM = SHUTDOWN (AOF fsynced, usually < 1 s). */
export async function stopRedis(settings, nodes) {
  if (settings.redis.external) return;
  await Promise.all(
    settings.redis.ports.map((port, i) => {
      const n = i + 1;
      if (nodes && !nodes.includes(n)) return undefined;
      const p = paths(settings, n);
      if (!isOurServer(readPid(p.pid), port)) {
        fs.rmSync(p.pid, { force: true }); // never signal a PID that now belongs to someone else
        return undefined;
      }
      return stopPid(p.name, p.pid);
    }),
  );
}
