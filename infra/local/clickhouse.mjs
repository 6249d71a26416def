// ClickHouse as our own process: Debian's clickhouse-server (18.16) with a config generated under
// the state directory (own ports and paths; nothing under /var).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
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
  const dir = path.join(settings.stateDir, 'clickhouse');
  return {
    dir,
    data: path.join(dir, 'data') + '/',
    tmp: path.join(dir, 'tmp') + '/',
    userFiles: path.join(dir, 'user_files') + '/',
    config: path.join(dir, 'config.xml'),
    users: path.join(dir, 'users.xml'),
    pid: path.join(dir, 'clickhouse.pid'),
    log: path.join(settings.logDir, 'clickhouse.log'),
    serverLog: path.join(settings.logDir, 'clickhouse-server.log'),
    serverErrLog: path.join(settings.logDir, 'clickhouse-server.err.log'),
  };
}

function configXml(settings, p) {
  const { httpPort, tcpPort, interserverPort } = settings.clickhouse;
  return `<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>${p.serverLog}</log>
    <errorlog>${p.serverErrLog}</errorlog>
    <size>100M</size>
    <count>3</count>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <interserver_http_port>${interserverPort}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <max_connections>512</max_connections>
  <keep_alive_timeout>30</keep_alive_timeout>
  <max_concurrent_queries>64</max_concurrent_queries>
  <!-- Small caches: this runs beside Kafka and Redis on a 2-core machine. -->
  <uncompressed_cache_size>0</uncompressed_cache_size>
  <mark_cache_size>268435456</mark_cache_size>
  <path>${p.data}</path>
  <tmp_path>${p.tmp}</tmp_path>
  <user_files_path>${p.userFiles}</user_files_path>
  <users_config>${p.users}</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
  <merge_tree>
    <parts_to_delay_insert>300</parts_to_delay_insert>
    <parts_to_throw_insert>600</parts_to_throw_insert>
  </merge_tree>
</yandex>
`;
}

function usersXml() {
  // `analyst`: read-only login for data engineers (README, "Querying the warehouse").
  const analystPassword = process.env.CLICKHOUSE_ANALYST_PASSWORD || 'analyst';
  const sha = createHash('sha256').update(analystPassword).digest('hex');
  return `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
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
      <networks><ip>::1</ip><ip>127.0.0.1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
    <analyst>
      <password_sha256_hex>${sha}</password_sha256_hex>
      <networks><ip>::1</ip><ip>127.0.0.1</ip></networks>
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

async function ping(port) {
  try {
    const pong = await fetch(`http://127.0.0.1:${port}/ping`, { signal: AbortSignal.timeout(1000) });
    if (!pong.ok || (await pong.text()) !== 'Ok.\n') return false;
    const one = await fetch(`http://127.0.0.1:${port}/?query=SELECT%201`, {
      signal: AbortSignal.timeout(2000),
    });
    return one.ok && (await one.text()).trim() === '1';
  } catch {
    return false;
  }
}

export async function startClickHouse(settings) {
  if (settings.clickhouse.external) return { url: settings.clickhouse.external, startedPid: 0 };
  const p = paths(settings);
  const port = settings.clickhouse.httpPort;
  const url = `http://127.0.0.1:${port}`;
  if (isAlive(readPid(p.pid)) && (await ping(port))) {
    log('clickhouse', `reusing running server on ${port}`);
    return { url, startedPid: 0 };
  }
  for (const taken of [port, settings.clickhouse.tcpPort]) {
    if (await tcpOpen(taken))
      throw new Error(`clickhouse: port ${taken} is already in use by another process`);
  }
  if (!commandExists('clickhouse-server'))
    aptInstall('clickhouse', ['clickhouse-server', 'clickhouse-client']);
  for (const dir of [p.dir, p.data, p.tmp, p.userFiles, settings.logDir])
    fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(p.config, configXml(settings, p));
  fs.writeFileSync(p.users, usersXml());
  const pid = startDaemon({
    component: 'clickhouse',
    command: 'clickhouse-server',
    args: [`--config-file=${p.config}`],
    logFile: p.log,
    pidFile: p.pid,
    cwd: p.dir,
  });
  await waitUntil('clickhouse', () => ping(port), { timeoutMs: 60_000, logFile: p.serverErrLog, pid });
  return { url, startedPid: pid };
}

export async function stopClickHouse(settings) {
  await stopPid('clickhouse', paths(settings).pid, { timeoutMs: 30_000 });
}
