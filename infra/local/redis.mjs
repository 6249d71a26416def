// Redis for keys, limits, batches and webhooks: Debian's redis-server, our own config, AOF on
// (keys and webhooks must survive restarts).
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

function paths(settings) {
  const dir = path.join(settings.stateDir, 'redis');
  return {
    dir,
    conf: path.join(dir, 'redis.conf'),
    pid: path.join(dir, 'redis.pid'),
    log: path.join(settings.logDir, 'redis.log'),
  };
}

/** Raw RESP PING, so readiness needs no client library. */
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
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}

export async function startRedis(settings) {
  if (settings.redis.external) return { url: settings.redis.external, startedPid: 0 };
  const p = paths(settings);
  const { port } = settings.redis;
  if (isAlive(readPid(p.pid)) && (await pingRedis(port))) {
    log('redis', `reusing running server on ${port}`);
    return { url: `redis://127.0.0.1:${port}`, startedPid: 0 };
  }
  if (await tcpOpen(port))
    throw new Error(`redis: port ${port} is already in use by another process (set REDIS_PORT)`);
  if (!commandExists('redis-server')) aptInstall('redis', ['redis-server']);
  fs.mkdirSync(p.dir, { recursive: true });
  fs.writeFileSync(
    p.conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      'protected-mode yes',
      'daemonize no',
      `dir ${p.dir}`,
      // AOF every second: at most one second of writes lost on a crash, survives restarts.
      'appendonly yes',
      'appendfsync everysec',
      // RDB snapshots off: the AOF is the one persistence mechanism (smaller, no fork spikes).
      'save ""',
      'loglevel notice',
      '',
    ].join('\n'),
  );
  const pid = startDaemon({
    component: 'redis',
    command: 'redis-server',
    args: [p.conf],
    logFile: p.log,
    pidFile: p.pid,
  });
  await waitUntil('redis', () => pingRedis(port), { timeoutMs: 20_000, logFile: p.log, pid });
  return { url: `redis://127.0.0.1:${port}`, startedPid: pid };
}

export async function stopRedis(settings) {
  // SIGTERM makes redis flush the AOF and exit.
  await stopPid('redis', paths(settings).pid);
}
