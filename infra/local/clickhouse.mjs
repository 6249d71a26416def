// ClickHouse as our own process: ClickHouse 26.x from the npm package @chdb/lib-linux-x64-gnu
// (libchdb.so = clickhouse-local as a library, pinned in package.json, installed by `npm ci`),
// run by a small C launcher that opens HTTP and native TCP listeners and stops on SIGTERM through
// clickhouse-local's own shutdown (infra/local/clickhouse/launcher.c says how). The launcher is
// compiled with gcc on first use and cached under the cache directory, keyed by its source and
// the library it links. Data, config and logs live under the state directory; listeners bind to
// 127.0.0.1 only, and besides `default` (loopback only) there is the read-only user `analyst`.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { isAlive, log, readPid, startDaemon, stopPid, tailFile, tcpOpen, waitUntil } from './processes.mjs';
import { clickhouseNodes, configXml, usersXml } from './clickhouse-config.mjs';
import { launcherBinary } from './clickhouse-launcher.mjs';
import { spreadPartDirectories } from './clickhouse-part-dirs.mjs';
import { pidFile } from './settings.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

export { clickhouseNodes, INTERNAL_TCP_OFFSET, LOCAL_CLUSTER } from './clickhouse-config.mjs';

const COMPONENT = 'clickhouse';
// The last query blocks on the launcher's stdin pipe until SIGTERM/SIGINT (see launcher.c).
const SERVE_QUERIES =
  "SYSTEM START LISTEN HTTP; SYSTEM START LISTEN TCP; SELECT count() FROM file('stdin', 'LineAsString') FORMAT Null";

// After SIGKILL of a launcher, its clickhouse-local child still holds the ports while it dies (the
// kernel SIGKILLs it when its parent is gone, PR_SET_PDEATHSIG, and tearing down a process of a few
// hundred MB takes a moment, seconds under load), so a start right after a kill waits this long for
// them before calling them someone else's.
const PORT_RELEASE_MS = 20_000;

/** True when `port` is still accepting connections after waiting up to `ms` for it to close. */
async function stillOpenAfter(port, ms) {
  const deadline = Date.now() + ms;
  while (await tcpOpen(port)) {
    if (Date.now() >= deadline) return true;
    await sleep(200);
  }
  return false;
}

function paths(settings, node = clickhouseNodes(settings)[0]) {
  const dir = path.join(settings.stateDir, node.name);
  // ClickHouse wants directory paths with a trailing slash.
  const sub = (name) => path.join(dir, name) + '/';
  return {
    dir,
    data: sub('data'),
    tmp: sub('tmp'),
    userFiles: sub('user_files'),
    backups: sub('backups'),
    config: path.join(dir, 'config.xml'),
    users: path.join(dir, 'users.xml'),
    pid: pidFile(settings, COMPONENT, node.n),
    log: path.join(settings.logDir, `${node.name}.log`), // launcher stdout/stderr: startup errors
    serverLog: path.join(settings.logDir, `${node.name}-server.log`),
    serverErrLog: path.join(settings.logDir, `${node.name}-server.err.log`),
  };
}

/** True when `pid` is our launcher running our config (not a recycled PID). */
function isOurServer(pid, configFile) {
  return serverConfigOf(pid) === configFile;
}

/**
 * The config file of the launcher `pid` when it is a ClickHouse server of this state directory
 * (of either topology: node 1's pid file is `clickhouse-1` in both, its data directory is not),
 * else undefined (gone, or a recycled PID).
 */
function serverConfigOf(pid, settings) {
  if (!isAlive(pid)) return undefined;
  try {
    const config = /--config-file=([^\0]+)/.exec(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1];
    if (!config || (settings && !config.startsWith(`${settings.stateDir}${path.sep}clickhouse`)))
      return undefined;
    return config;
  } catch {
    return undefined;
  }
}

/** GET over a fresh connection (`Connection: close`): a pooled keep-alive socket left open by a
 * probe would hold up the server's shutdown until keep_alive_timeout. */
function httpGet(port, pathAndQuery, timeoutMs) {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path: pathAndQuery, agent: false, timeout: timeoutMs },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body }));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

/** Ready = `/ping` answers "Ok.\n" and a query runs (users.xml loaded). */
async function ready(port) {
  const pong = await httpGet(port, '/ping', 1000);
  if (pong.status !== 200 || pong.body !== 'Ok.\n') return false;
  const one = await httpGet(port, '/?query=SELECT%201', 2000);
  return one.status === 200 && one.body.trim() === '1';
}

/**
 * Starts the topology's servers that are not running (in parallel) and waits until each answers.
 * `url` is the first server's (the services' CLICKHOUSE_URL: every node serves every table),
 * `urls` all of them (migrations apply to each); `startedPid` is non-zero when this call started
 * any (the stack then stops them on the way out).
 */
export async function startClickHouse(settings) {
  if (settings.clickhouse.external)
    return { url: settings.clickhouse.external, urls: [settings.clickhouse.external], startedPid: 0 };
  const nodes = clickhouseNodes(settings);
  const binary = await launcherBinary(settings);
  const started = [];
  const results = await Promise.allSettled(
    nodes.map((node) => startNode(settings, node, binary).then((pid) => pid && started.push(node.n))),
  );
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) {
    await stopClickHouse(settings, started); // a half-started topology would hold its ports
    throw failed.reason;
  }
  return {
    url: nodes[0].url,
    urls: nodes.map((node) => node.url),
    startedPid: started.length ? readPid(paths(settings, nodes[started[0] - 1]).pid) : 0,
    startedNodes: started.sort(),
  };
}

/**
 * After migrations: marks each local server's table directories so that new parts are created
 * away from their predecessors (clickhouse-part-dirs.mjs says why). Returns how many were marked.
 */
export async function spreadClickHousePartDirectories(settings) {
  if (settings.clickhouse.external) return 0;
  let marked = 0;
  for (const node of clickhouseNodes(settings))
    marked += await spreadPartDirectories(paths(settings, node).data);
  return marked;
}

/** One server (node `n` of the topology) when it is not running: `stack up` after a node died. */
export async function startClickHouseNode(settings, n) {
  const node = clickhouseNodes(settings).find((candidate) => candidate.n === n);
  if (!node) throw new Error(`ClickHouse: no node ${n} (CLICKHOUSE_SHARDS=${settings.clickhouse.shards})`);
  return startNode(settings, node, await launcherBinary(settings));
}

async function startNode(settings, node, binary) {
  const p = paths(settings, node);
  const { httpPort, tcpPort, internalTcpPort } = node;
  const waitOptions = (pid) => ({ timeoutMs: 60_000, logFile: p.log, pid });

  const running = readPid(p.pid);
  if (isOurServer(running, p.config)) {
    // Left running by an earlier `npm start`/`npm test` (or still booting in a parallel one).
    await waitUntil(node.name, () => ready(httpPort), waitOptions(running));
    log(COMPONENT, `reusing running ${node.name} pid ${running} on ${httpPort}`);
    return 0;
  }
  const other = serverConfigOf(running, settings);
  if (other)
    throw new Error(
      `ClickHouse: ${node.name}'s pid file names a server of the other topology (pid ${running}, ` +
        `${other}); stop it first (npm run stack -- down with the topology it was started with)`,
    );
  fs.rmSync(p.pid, { force: true }); // stale: that process is gone or is something else now
  for (const [name, port] of [
    ['HTTP', httpPort],
    ['native TCP', tcpPort],
    ['internal native TCP', internalTcpPort],
  ]) {
    if (await stillOpenAfter(port, PORT_RELEASE_MS))
      throw new Error(
        `ClickHouse: ${name} port ${port} on 127.0.0.1 is in use by a process this stack did not ` +
          'start; stop it, or pick other ports with RLS_PORT_BASE or CLICKHOUSE_*_PORT',
      );
  }

  for (const dir of [p.dir, p.data, p.tmp, p.userFiles, p.backups, settings.logDir, path.dirname(p.pid)])
    fs.mkdirSync(dir, { recursive: true });
  // Regenerated on every start so port or password changes apply; the data directory is kept.
  fs.writeFileSync(p.config, configXml(settings, node, p));
  fs.writeFileSync(p.users, usersXml(settings));
  const pid = startDaemon({
    component: node.name,
    command: binary,
    // --log-level: clickhouse-local otherwise logs at trace, whatever <logger><level> says.
    args: [
      `--native-front=${tcpPort}:${internalTcpPort}:${httpPort}`,
      `--config-file=${p.config}`,
      '--log-level=information',
      `--query=${SERVE_QUERIES}`,
    ],
    logFile: p.log,
    pidFile: p.pid,
    cwd: p.dir,
  });
  try {
    await waitUntil(node.name, () => ready(httpPort), waitOptions(pid));
  } catch (error) {
    error.message += `\nServer error log ${p.serverErrLog}; last lines:\n${tailFile(p.serverErrLog, 10)}`;
    await stopPid(COMPONENT, p.pid); // don't leave a half-started server holding the ports
    throw error;
  }
  return pid;
}

/** Stops the topology's servers (or only the node numbers in `only`), together. */
export async function stopClickHouse(settings, only) {
  await Promise.all(
    clickhouseNodes(settings)
      .filter((node) => !only || only.includes(node.n))
      .map(async (node) => {
        const p = paths(settings, node);
        // A server of this state directory in either topology: `down` after a topology switch
        // still stops it (and never a PID that now belongs to someone else).
        if (!serverConfigOf(readPid(p.pid), settings)) {
          fs.rmSync(p.pid, { force: true }); // never signal a PID that now belongs to someone else
          return;
        }
        // SIGTERM: the launcher ends clickhouse-local's serving query and clickhouse-local shuts down
        // (in-flight queries finish first; measured ~1 s when idle). The timeout only covers a hang.
        await stopPid(node.name, p.pid, { timeoutMs: 60_000 });
      }),
  );
}

/** Each server's data directory and the directory its BACKUP/RESTORE File() paths are relative to. */
export function clickhouseDirectories(settings) {
  return clickhouseNodes(settings).map((node) => {
    const p = paths(settings, node);
    return { n: node.n, url: node.url, dir: p.dir, data: p.data, backups: p.backups };
  });
}

/** Pid file of each server of the topology (fault tests and benchmarks find the processes here). */
export function clickhousePidFiles(settings) {
  return clickhouseNodes(settings).map((node) => paths(settings, node).pid);
}
