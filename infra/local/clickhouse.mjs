// ClickHouse as our own process: ClickHouse 26.x from the npm package @chdb/lib-linux-x64-gnu
// (libchdb.so = clickhouse-local as a library, pinned in package.json, installed by `npm ci`),
// run by a small C launcher that opens HTTP and native TCP listeners and stops on SIGTERM through
// clickhouse-local's own shutdown (infra/local/clickhouse/launcher.c says how). The launcher is
// compiled with gcc on first use and cached under the cache directory, keyed by its source and
// the library it links. Data, config and logs live under the state directory; listeners bind to
// 127.0.0.1 only, and besides `default` (loopback only) there is the read-only user `analyst`.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
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
  tailFile,
  tcpOpen,
  waitUntil,
} from './processes.mjs';
import { pidFile, repoRoot } from './settings.mjs';

const COMPONENT = 'clickhouse';
const LIBRARY_PACKAGE = '@chdb/lib-linux-x64-gnu';
const LAUNCHER_SOURCE = path.join(repoRoot, 'infra/local/clickhouse/launcher.c');

// The last query blocks on the launcher's stdin pipe until SIGTERM/SIGINT (see launcher.c).
const SERVE_QUERIES =
  "SYSTEM START LISTEN HTTP; SYSTEM START LISTEN TCP; SELECT count() FROM file('stdin', 'LineAsString') FORMAT Null";

function paths(settings) {
  const dir = path.join(settings.stateDir, 'clickhouse');
  // ClickHouse wants directory paths with a trailing slash.
  const sub = (name) => path.join(dir, name) + '/';
  return {
    dir,
    data: sub('data'),
    tmp: sub('tmp'),
    userFiles: sub('user_files'),
    config: path.join(dir, 'config.xml'),
    users: path.join(dir, 'users.xml'),
    pid: pidFile(settings, COMPONENT, 1),
    log: path.join(settings.logDir, 'clickhouse.log'), // launcher stdout/stderr: startup errors
    serverLog: path.join(settings.logDir, 'clickhouse-server.log'),
    serverErrLog: path.join(settings.logDir, 'clickhouse-server.err.log'),
  };
}

function configXml(settings, p) {
  const { httpPort, tcpPort } = settings.clickhouse;
  return `<?xml version="1.0"?>
<clickhouse>
  <logger>
    <level>information</level>
    <log>${p.serverLog}</log>
    <errorlog>${p.serverErrLog}</errorlog>
    <size>50M</size>
    <count>2</count>
    <console>0</console>
  </logger>
  <!-- Loopback only: listeners of clickhouse-local serve whoever can connect. -->
  <listen_host>127.0.0.1</listen_host>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <!-- Above the 2.5 s idle-socket TTL of @clickhouse/client, so pooled sockets are not reset
       under the client; low enough that idle connections do not pile up. -->
  <keep_alive_timeout>10</keep_alive_timeout>
  <!-- Two cores: more concurrent queries only queue on CPU and multiply memory. -->
  <max_concurrent_queries>64</max_concurrent_queries>
  <!-- Small caches: this runs beside Kafka, Redis and the services on a small machine. -->
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>0</uncompressed_cache_size>
  <max_server_memory_usage_to_ram_ratio>0.5</max_server_memory_usage_to_ram_ratio>
  <path>${p.data}</path>
  <tmp_path>${p.tmp}</tmp_path>
  <user_files_path>${p.userFiles}</user_files_path>
  <users_config>${p.users}</users_config>
  <default_profile>default</default_profile>
  <timezone>UTC</timezone>
</clickhouse>
`;
}

export function analystPasswordSha256(env = process.env) {
  // `analyst`: read-only login for data engineers (README, "Querying the warehouse").
  return createHash('sha256')
    .update(env.CLICKHOUSE_ANALYST_PASSWORD || 'analyst')
    .digest('hex');
}

function usersXml() {
  const localhost = '<networks><ip>::1</ip><ip>127.0.0.1</ip></networks>';
  // analyst: readonly=2 (no writes or DDL, but per-query settings such as output formats that
  // clients send), capped by constraints so a query cannot raise its own limits: each has a <min>
  // too, since 0 means "unlimited" for these settings. SELECT on every
  // database named rls* (namespaced test databases are rls_<ns>) and on system (system.columns).
  return `<?xml version="1.0"?>
<clickhouse>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
    </default>
    <analyst>
      <readonly>2</readonly>
      <max_execution_time>60</max_execution_time>
      <max_memory_usage>2000000000</max_memory_usage>
      <max_result_bytes>500000000</max_result_bytes>
      <constraints>
        <max_execution_time><min>1</min><max>60</max></max_execution_time>
        <max_memory_usage><min>1</min><max>2000000000</max></max_memory_usage>
        <max_result_bytes><min>1</min><max>500000000</max></max_result_bytes>
      </constraints>
    </analyst>
  </profiles>
  <users>
    <default>
      <password></password>
      ${localhost}
      <profile>default</profile>
      <quota>default</quota>
    </default>
    <analyst>
      <password_sha256_hex>${analystPasswordSha256()}</password_sha256_hex>
      ${localhost}
      <profile>analyst</profile>
      <quota>default</quota>
      <grants>
        <query>GRANT SELECT ON rls*.*</query>
        <query>GRANT SELECT ON system.*</query>
      </grants>
    </analyst>
  </users>
  <quotas>
    <default>
      <interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
    </default>
  </quotas>
</clickhouse>
`;
}

/** The directory of libchdb.so in node_modules (installed by `npm ci`). */
function libraryDir() {
  const require = createRequire(path.join(repoRoot, 'package.json'));
  let manifest;
  try {
    manifest = require.resolve(`${LIBRARY_PACKAGE}/package.json`);
  } catch {
    throw new Error(`ClickHouse: ${LIBRARY_PACKAGE} is not installed; run npm ci`);
  }
  const dir = path.dirname(manifest);
  if (!fs.existsSync(path.join(dir, 'libchdb.so')))
    throw new Error(`ClickHouse: ${dir}/libchdb.so is missing; reinstall with npm ci`);
  return dir;
}

/** Compiles launcher.c once per (source, library) into the cache directory. */
async function launcherBinary(settings) {
  const lib = libraryDir();
  const version = JSON.parse(fs.readFileSync(path.join(lib, 'package.json'), 'utf8')).version;
  const source = fs.readFileSync(LAUNCHER_SOURCE);
  const key = createHash('sha256').update(source).update(lib).update(version).digest('hex').slice(0, 16);
  const binary = path.join(settings.cacheDir, 'clickhouse', `launcher-${key}`);
  if (fs.existsSync(binary)) return binary;
  if (!commandExists('gcc')) aptInstall(COMPONENT, ['gcc', 'libc6-dev']);
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  const partial = `${binary}.${process.pid}.tmp`; // parallel stacks may compile at once
  await runCommand(
    'gcc',
    ['-O2', '-Wall', '-o', partial, LAUNCHER_SOURCE, `-L${lib}`, '-lchdb', `-Wl,-rpath,${lib}`, '-lpthread'],
    { inheritStderr: true },
  );
  fs.renameSync(partial, binary);
  log(COMPONENT, `built launcher ${binary} against ${LIBRARY_PACKAGE}@${version}`);
  return binary;
}

/** True when `pid` is our launcher running our config (not a recycled PID). */
function isOurServer(pid, configFile) {
  if (!isAlive(pid)) return false;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`--config-file=${configFile}`);
  } catch {
    return false;
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

export async function startClickHouse(settings) {
  if (settings.clickhouse.external) return { url: settings.clickhouse.external, startedPid: 0 };
  const p = paths(settings);
  const { httpPort, tcpPort } = settings.clickhouse;
  const url = `http://127.0.0.1:${httpPort}`;
  const waitOptions = (pid) => ({ timeoutMs: 60_000, logFile: p.log, pid });

  const running = readPid(p.pid);
  if (isOurServer(running, p.config)) {
    // Left running by an earlier `npm start`/`npm test` (or still booting in a parallel one).
    await waitUntil('ClickHouse', () => ready(httpPort), waitOptions(running));
    log(COMPONENT, `reusing running server pid ${running} on ${httpPort}`);
    return { url, startedPid: 0 };
  }
  fs.rmSync(p.pid, { force: true }); // stale: that process is gone or is something else now
  for (const [name, port] of [
    ['HTTP', httpPort],
    ['native TCP', tcpPort],
  ]) {
    if (await tcpOpen(port))
      throw new Error(
        `ClickHouse: ${name} port ${port} on 127.0.0.1 is in use by a process this stack did not ` +
          'start; stop it, or pick other ports with RLS_PORT_BASE or CLICKHOUSE_*_PORT',
      );
  }

  const binary = await launcherBinary(settings);
  for (const dir of [p.dir, p.data, p.tmp, p.userFiles, settings.logDir])
    fs.mkdirSync(dir, { recursive: true });
  // Regenerated on every start so port or password changes apply; the data directory is kept.
  fs.writeFileSync(p.config, configXml(settings, p));
  fs.writeFileSync(p.users, usersXml());
  const pid = startDaemon({
    component: COMPONENT,
    command: binary,
    // --log-level: clickhouse-local otherwise logs at trace, whatever <logger><level> says.
    args: [`--config-file=${p.config}`, '--log-level=information', `--query=${SERVE_QUERIES}`],
    logFile: p.log,
    pidFile: p.pid,
    cwd: p.dir,
  });
  try {
    await waitUntil('ClickHouse', () => ready(httpPort), waitOptions(pid));
  } catch (error) {
    error.message += `\nServer error log ${p.serverErrLog}; last lines:\n${tailFile(p.serverErrLog, 10)}`;
    await stopPid(COMPONENT, p.pid); // don't leave a half-started server holding the ports
    throw error;
  }
  return { url, startedPid: pid };
}

export async function stopClickHouse(settings) {
  const p = paths(settings);
  if (!isOurServer(readPid(p.pid), p.config)) {
    fs.rmSync(p.pid, { force: true }); // never signal a PID that now belongs to someone else
    return;
  }
  // SIGTERM: the launcher ends clickhouse-local's serving query and clickhouse-local shuts down
  // (in-flight queries finish first; measured ~1 s when idle). The timeout only covers a hang.
  await stopPid(COMPONENT, p.pid, { timeoutMs: 60_000 });
}
