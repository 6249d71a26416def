// Redis for keys, limits, batches and webhooks: Debian's redis-server as our own process, config
// generated under the state directory, AOF on (keys and webhooks must survive restarts).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
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

const COMPONENT = 'redis';

function paths(settings) {
  const dir = path.join(settings.stateDir, 'redis');
  return {
    dir,
    conf: path.join(dir, 'redis.conf'),
    pid: path.join(dir, 'redis.pid'),
    log: path.join(settings.logDir, 'redis.log'),
  };
}

function redisConf(port, dir, maxmemoryMb) {
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
    ...memoryDirectives(maxmemoryMb).map(([name, value]) => `${name} ${value}`),
    // Listing owners live in 1,048,576 hashes (stream/listings/owners.ts) and views in per-account
    // buckets: up to 512 fields per hash keep the compact listpack encoding (default 128).
    'hash-max-listpack-entries 512',
    '',
  ].join('\n');
}

/**
 * A memory ceiling, and never eviction: keys, webhooks and listing owners must never silently
 * disappear. At the ceiling Redis refuses writes ("OOM command not allowed"), so requests that
 * write get 503 while reads, revocations of keys and the rest of the machine keep working — instead
 * of Redis growing until the kernel kills it (README, "Redis sizing"; the daily quotas of
 * ingest/quota.ts keep any one account from getting there).
 */
function memoryDirectives(maxmemoryMb) {
  return [
    ['maxmemory', `${maxmemoryMb}mb`],
    ['maxmemory-policy', 'noeviction'],
  ];
}

/** One RESP command on a fresh connection (no client library); resolves with the raw reply. */
function redisCommand(port, args) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let reply = '';
    socket.setTimeout(2000, () => {
      socket.destroy();
      reject(new Error(`Redis on ${port} did not answer ${args[0]}`));
    });
    socket.once('connect', () =>
      socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`),
    );
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply);
      }
    });
    socket.once('error', reject);
  });
}

/** Raw RESP PING, so readiness needs no client library. `-LOADING` (AOF replay) is not ready. */
export function pingRedis(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let reply = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG\r\n'));
    });
    socket.once('error', () => done(false));
    socket.once('end', () => done(false));
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

export async function startRedis(settings) {
  if (settings.redis.external) return { url: settings.redis.external, startedPid: 0 };
  const p = paths(settings);
  const { port } = settings.redis;
  const url = `redis://127.0.0.1:${port}`;
  const waitOptions = (pid) => ({ timeoutMs: 30_000, logFile: p.log, pid });

  const running = readPid(p.pid);
  if (isOurServer(running, port)) {
    // Left running by an earlier run, or still replaying its AOF.
    await waitUntil('Redis', () => pingRedis(port), waitOptions(running));
    // A server started before the memory ceiling existed (or with another REDIS_MAXMEMORY_MB) gets it now.
    for (const [name, value] of memoryDirectives(settings.redis.maxmemoryMb)) {
      const reply = await redisCommand(port, ['CONFIG', 'SET', name, value]);
      if (!reply.startsWith('+OK')) throw new Error(`Redis: CONFIG SET ${name} failed: ${reply.trim()}`);
    }
    log(COMPONENT, `reusing running server pid ${running} on ${port}`);
    return { url, startedPid: 0 };
  }
  fs.rmSync(p.pid, { force: true }); // stale
  if (await tcpOpen(port))
    throw new Error(
      `Redis: port ${port} on 127.0.0.1 is in use by a process this stack did not start; stop it, ` +
        'or pick another port with RLS_PORT_BASE or REDIS_PORT',
    );

  if (!commandExists('redis-server')) aptInstall(COMPONENT, ['redis-server']);
  fs.mkdirSync(p.dir, { recursive: true });
  fs.writeFileSync(p.conf, redisConf(port, p.dir, settings.redis.maxmemoryMb));
  const pid = startDaemon({
    component: COMPONENT,
    command: 'redis-server',
    args: [p.conf],
    logFile: p.log,
    pidFile: p.pid,
    cwd: p.dir,
  });
  try {
    await waitUntil('Redis', () => pingRedis(port), waitOptions(pid));
  } catch (error) {
    await stopPid(COMPONENT, p.pid);
    throw error;
  }
  return { url, startedPid: pid };
}

export async function stopRedis(settings) {
  const p = paths(settings);
  if (!isOurServer(readPid(p.pid), settings.redis.port)) {
    fs.rmSync(p.pid, { force: true }); // never signal a PID that now belongs to someone else
    return;
  }
  // SIGTERM = SHUTDOWN: redis fsyncs the AOF (no RDB save, `save ""`) and exits, usually < 1 s.
  await stopPid(COMPONENT, p.pid);
}
