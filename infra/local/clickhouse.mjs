// ClickHouse as our own process: Debian's clickhouse-server 18.16 with a config generated under the
// state directory (own ports, own paths, nothing under /var; the Debian service, if any, is ignored).
// 18.16 specifics: the root element is <yandex>, the server binary is /usr/sbin/clickhouse-server
// (not `clickhouse server`), and unknown top-level elements are silently ignored, so keep to the
// element names of 18.16's own /etc/clickhouse-server/config.xml.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  aptInstall,
  commandExists,
  isAlive,
  log,
  readPid,
  startDaemon,
  stopPid,
  tailFile,
  tcpOpen,
  waitUntil,
} from './processes.mjs';

const COMPONENT = 'clickhouse';

function paths(settings) {
  const dir = path.join(settings.stateDir, 'clickhouse');
  // ClickHouse wants directory paths with a trailing slash.
  const sub = (name) => path.join(dir, name) + '/';
  return {
    dir,
    data: sub('data'),
    tmp: sub('tmp'),
    userFiles: sub('user_files'),
    formatSchemas: sub('format_schemas'),
    config: path.join(dir, 'config.xml'),
    users: path.join(dir, 'users.xml'),
    pid: path.join(dir, 'clickhouse.pid'),
    log: path.join(settings.logDir, 'clickhouse.log'), // stdout/stderr: config and startup errors
    serverLog: path.join(settings.logDir, 'clickhouse-server.log'),
    serverErrLog: path.join(settings.logDir, 'clickhouse-server.err.log'),
  };
}

function configXml(settings, p) {
  const { httpPort, tcpPort, interserverPort } = settings.clickhouse;
  // No remote_servers / zookeeper / graphite / query_log / dictionaries: single local node, and
  // every omitted element is one less default path (several default to /var/lib/clickhouse).
  return `<?xml version="1.0"?>
<yandex>
  <logger>
    <!-- information, not warning: stopClickHouse watches for the shutdown lines, which are logged
         at this level. Costs two lines per query; rotation below bounds it. -->
    <level>information</level>
    <log>${p.serverLog}</log>
    <errorlog>${p.serverErrLog}</errorlog>
    <size>50M</size>
    <count>2</count>
  </logger>
  <!-- Loopback only, IPv4: the URL we hand out is 127.0.0.1 (::1 is not in every container). -->
  <listen_host>127.0.0.1</listen_host>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <interserver_http_port>${interserverPort}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <max_connections>512</max_connections>
  <!-- 18.16 defaults to 3 s: barely above the 2.5 s idle-socket TTL of @clickhouse/client, so
       reused sockets get reset (ECONNRESET). Not higher than 10 s: on SIGTERM the server waits for
       idle keep-alive connections for up to this long (measured: stop takes ~timeout). -->
  <keep_alive_timeout>10</keep_alive_timeout>
  <!-- Two cores: more concurrent queries only queue on CPU and multiply memory. -->
  <max_concurrent_queries>32</max_concurrent_queries>
  <!-- Small caches: this runs beside Kafka and Redis on a 2-core, small-RAM machine. -->
  <uncompressed_cache_size>0</uncompressed_cache_size>
  <mark_cache_size>268435456</mark_cache_size>
  <path>${p.data}</path>
  <tmp_path>${p.tmp}</tmp_path>
  <user_files_path>${p.userFiles}</user_files_path>
  <format_schema_path>${p.formatSchemas}</format_schema_path>
  <users_config>${p.users}</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
  <merge_tree>
    <!-- Tests insert many small batches; 18.16 defaults (150/300) throw "Too many parts" early. -->
    <parts_to_delay_insert>300</parts_to_delay_insert>
    <parts_to_throw_insert>600</parts_to_throw_insert>
  </merge_tree>
</yandex>
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
  // readonly=1 forbids writes, DDL *and* changing settings per query; readonly=2 would allow the
  // latter, which we don't need for ad-hoc SELECTs from clickhouse-client or curl.
  return `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
      <use_uncompressed_cache>0</use_uncompressed_cache>
      <load_balancing>random</load_balancing>
    </default>
    <readonly>
      <readonly>1</readonly>
      <max_memory_usage>2000000000</max_memory_usage>
      <max_execution_time>60</max_execution_time>
    </readonly>
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
      <profile>readonly</profile>
      <quota>default</quota>
    </analyst>
  </users>
  <quotas>
    <default>
      <interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
    </default>
  </quotas>
</yandex>
`;
}

/** The server binary: Debian ships it in /usr/sbin, which a non-root PATH may lack. */
function serverBinary() {
  const found = () =>
    commandExists('clickhouse-server')
      ? 'clickhouse-server'
      : ['/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-server'].find((f) => fs.existsSync(f));
  if (!found()) aptInstall(COMPONENT, ['clickhouse-server', 'clickhouse-client']);
  const binary = found();
  if (!binary) throw new Error('ClickHouse: clickhouse-server not found even after apt-get install');
  return binary;
}

/** True when `pid` is a clickhouse-server running our config (not a recycled PID). */
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

/** Ready = `/ping` answers "Ok.\n" and a query runs (users.xml loaded, default database open). */
async function ready(port) {
  const pong = await httpGet(port, '/ping', 1000);
  if (pong.status !== 200 || pong.body !== 'Ok.\n') return false;
  const one = await httpGet(port, '/?query=SELECT%201', 2000);
  return one.status === 200 && one.body.trim() === '1';
}

export async function startClickHouse(settings) {
  if (settings.clickhouse.external) return { url: settings.clickhouse.external, startedPid: 0 };
  const p = paths(settings);
  const { httpPort, tcpPort, interserverPort } = settings.clickhouse;
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
    ['interserver', interserverPort],
  ]) {
    if (await tcpOpen(port))
      throw new Error(
        `ClickHouse: ${name} port ${port} on 127.0.0.1 is in use by a process this stack did not ` +
          'start; stop it, or pick other ports with RLS_PORT_BASE or CLICKHOUSE_*_PORT',
      );
  }

  const binary = serverBinary();
  for (const dir of [p.dir, p.data, p.tmp, p.userFiles, p.formatSchemas, settings.logDir])
    fs.mkdirSync(dir, { recursive: true });
  // Regenerated on every start so port or password changes apply; the data directory is kept.
  fs.writeFileSync(p.config, configXml(settings, p));
  fs.writeFileSync(p.users, usersXml());
  const pid = startDaemon({
    component: COMPONENT,
    command: binary,
    args: [`--config-file=${p.config}`],
    logFile: p.log,
    pidFile: p.pid,
    cwd: p.dir,
  });
  try {
    await waitUntil('ClickHouse', () => ready(httpPort), waitOptions(pid));
  } catch (error) {
    // Config errors land in clickhouse.log (stdout); runtime ones in the server's own err log.
    error.message += `\nServer error log ${p.serverErrLog}; last lines:\n${tailFile(p.serverErrLog, 10)}`;
    await stopPid(COMPONENT, p.pid); // don't leave a half-started server holding the ports
    throw error;
  }
  return { url, startedPid: pid };
}

/** True once the server log, past byte `from`, shows 18.16's clean-shutdown line. */
function shutdownLogged(file, from) {
  try {
    const size = fs.statSync(file).size;
    const start = size < from ? 0 : from; // rotated meanwhile: the new file is short anyway
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(size - start, 1 << 20));
      fs.readSync(fd, buffer, 0, buffer.length, size - buffer.length);
      return buffer.toString('utf8').includes('Application: shutting down');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

export async function stopClickHouse(settings) {
  const p = paths(settings);
  if (!isOurServer(readPid(p.pid), p.config)) {
    fs.rmSync(p.pid, { force: true }); // never signal a PID that now belongs to someone else
    return;
  }
  // SIGTERM: with no client connections 18.16 exits in < 1 s. While a client still holds an idle
  // keep-alive connection it lingers for up to keep_alive_timeout: measured both before
  // "Shutting down storages." (must wait) and after "Application: shutting down" (storages are
  // closed, nothing left to flush), so stopPid may cut the second case short.
  let logged = 0;
  try {
    logged = fs.statSync(p.serverLog).size;
  } catch {
    /* no log yet */
  }
  await stopPid(COMPONENT, p.pid, {
    timeoutMs: 30_000,
    stoppedEarly: async () => shutdownLogged(p.serverLog, logged),
  });
}
