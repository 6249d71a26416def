// Proof of infra/local/clickhouse.mjs and redis.mjs, runnable beside a running `npm start`/`npm test`:
//   node infra/local/prove-ch-redis.mjs
// Own state dir and ports (RLS_STATE_DIR=.local/chredis-proof, RLS_PORT_BASE=32000 unless set).
// Starts both from a wiped state dir, checks SQL, users, AOF, reuse, port conflicts and external
// mode, measures start/stop times and RSS, restarts to prove persistence, stops both.
// Prints PASS/FAIL per check; exit code 1 if anything failed. Dependency-free (no npm packages).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startClickHouse, stopClickHouse } from './clickhouse.mjs';
import { isAlive, tcpOpen } from './processes.mjs';
import { startRedis, stopRedis } from './redis.mjs';
import { readSettings } from './settings.mjs';

const env = { ...process.env };
env.RLS_STATE_DIR ||= '.local/chredis-proof';
env.RLS_PORT_BASE ||= '32000';
delete env.CLICKHOUSE_URL; // always prove our own processes, never an external server
delete env.REDIS_URL;
const settings = readSettings(env, { profile: 'test' });
const chPort = settings.clickhouse.httpPort;
const redisPort = settings.redis.port;
const analystPassword = env.CLICKHOUSE_ANALYST_PASSWORD || 'analyst';

const results = [];
function check(name, ok, detail = '') {
  results.push({ name, ok: Boolean(ok) });
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'}  ${name}${detail ? `  (${detail})` : ''}\n`);
}
const figures = [];
const figure = (name, value) => figures.push(`${name}: ${value}`);

const rssMb = (pid) => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return `${(kb / 1024).toFixed(1)} MiB`;
};
const pidOf = (name) => Number(fs.readFileSync(path.join(settings.stateDir, name), 'utf8'));
const timed = async (fn) => {
  const t0 = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - t0 };
};

/** One ClickHouse HTTP query (POST body), fresh connection, optional basic auth. */
function ch(sql, { user, password } = {}) {
  return new Promise((resolve, reject) => {
    const headers = user
      ? { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` }
      : {};
    const req = http.request(
      { host: '127.0.0.1', port: chPort, method: 'POST', path: '/', agent: false, headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ ok: res.statusCode === 200, body: body.trim() }));
      },
    );
    req.on('error', reject);
    req.end(sql);
  });
}

/** One Redis command over raw RESP; returns the reply as a string (arrays joined with ','). */
function redis(...args) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: redisPort, host: '127.0.0.1' });
    let buf = '';
    socket.setTimeout(2000, () => socket.destroy(new Error('redis timeout')));
    socket.on('error', reject);
    socket.on('connect', () =>
      socket.write(
        `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${a}\r\n`).join('')}`,
      ),
    );
    socket.on('data', (chunk) => {
      buf += chunk;
      const parsed = parse(buf, 0);
      if (parsed) {
        socket.destroy();
        resolve(parsed.value);
      }
    });
  });
}
function parse(buf, at) {
  const eol = buf.indexOf('\r\n', at);
  if (eol < 0) return null;
  const type = buf[at];
  const line = buf.slice(at + 1, eol);
  if (type === '+' || type === '-' || type === ':')
    return { value: type === '-' ? `ERR ${line}` : line, end: eol + 2 };
  if (type === '$') {
    const n = Number(line);
    if (n < 0) return { value: null, end: eol + 2 };
    if (buf.length < eol + 2 + n + 2) return null;
    return { value: buf.slice(eol + 2, eol + 2 + n), end: eol + 2 + n + 2 };
  }
  if (type === '*') {
    const items = [];
    let end = eol + 2;
    for (let i = 0; i < Number(line); i++) {
      const item = parse(buf, end);
      if (!item) return null;
      items.push(item.value);
      end = item.end;
    }
    return { value: items.join(','), end };
  }
  throw new Error(`unexpected RESP: ${buf}`);
}

async function expectReject(promise, pattern) {
  try {
    await promise;
    return 'did not fail';
  } catch (error) {
    return pattern.test(error.message) ? true : error.message;
  }
}

const stopBoth = () => Promise.all([stopClickHouse(settings), stopRedis(settings)]);
let code = 1;
try {
  // --- fresh start ----------------------------------------------------------------------------
  await stopBoth(); // leftovers of an aborted earlier proof
  fs.rmSync(settings.stateDir, { recursive: true, force: true });
  const [chStart, redisStart] = await Promise.all([
    timed(() => startClickHouse(settings)),
    timed(() => startRedis(settings)),
  ]);
  check(
    'clickhouse starts',
    chStart.value.startedPid > 0 && chStart.value.url === `http://127.0.0.1:${chPort}`,
  );
  check(
    'redis starts',
    redisStart.value.startedPid > 0 && redisStart.value.url === `redis://127.0.0.1:${redisPort}`,
  );
  const chPid = chStart.value.startedPid;
  const redisPid = redisStart.value.startedPid;
  figure('clickhouse first start (to /ping + SELECT 1)', `${chStart.ms} ms`);
  figure('redis first start (to +PONG)', `${redisStart.ms} ms`);
  figure('clickhouse RSS at ready', rssMb(chPid));
  figure('redis RSS at ready', rssMb(redisPid));

  // --- ClickHouse: config, SQL, users ---------------------------------------------------------
  const config = fs.readFileSync(path.join(settings.stateDir, 'clickhouse/config.xml'), 'utf8');
  const users = fs.readFileSync(path.join(settings.stateDir, 'clickhouse/users.xml'), 'utf8');
  check('config writes nothing under /var', !/\/var\//.test(config + users));
  // 18.16 has no getSetting(); it reports the configured "UTC" as its alias "Etc/UTC".
  const info = await ch(
    "SELECT version(), timezone(), value FROM system.settings WHERE name = 'max_memory_usage'",
  );
  check(
    'server version 18.16, timezone UTC, profile default',
    /^18\.16\.\S+\t(Etc\/)?UTC\t4000000000$/.test(info.body),
    info.body,
  );
  // Loopback only: none of the ports answers on this machine's other addresses.
  const external = Object.values(os.networkInterfaces())
    .flat()
    .filter((i) => i.family === 'IPv4' && !i.internal)
    .map((i) => i.address);
  const ports = [chPort, settings.clickhouse.tcpPort, redisPort];
  const exposed = [];
  for (const address of external)
    for (const port of ports) if (await tcpOpen(port, address)) exposed.push(`${address}:${port}`);
  check(
    'ports bound to 127.0.0.1 only',
    exposed.length === 0,
    external.length ? `probed ${external.join(', ')}` : 'no other interface to probe',
  );
  const ddl = await ch(
    'CREATE TABLE IF NOT EXISTS default.proof (day Date, id UInt64, price Float64) ' +
      'ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (day, id)',
  );
  const insert = await ch(
    'INSERT INTO default.proof FORMAT TSV\n' +
      Array.from({ length: 1000 }, (_, i) => `2026-0${1 + (i % 3)}-15\t${i}\t${i * 1.5}`).join('\n'),
  );
  const count = await ch('SELECT count(), sum(price), uniqExact(_partition_id) FROM default.proof');
  check(
    'MergeTree create/insert/select',
    ddl.ok && insert.ok && count.body === '1000\t749250\t3',
    count.body,
  );
  const analyst = { user: 'analyst', password: analystPassword };
  const aSelect = await ch('SELECT count() FROM default.proof', analyst);
  check(
    'analyst can SELECT (password_sha256_hex)',
    aSelect.ok && aSelect.body === '1000',
    aSelect.body.slice(0, 80),
  );
  const aInsert = await ch('INSERT INTO default.proof VALUES (today(), 1, 1)', analyst);
  check('analyst cannot INSERT', !aInsert.ok && /readonly/i.test(aInsert.body), aInsert.body.slice(0, 60));
  const aCreate = await ch('CREATE TABLE default.nope (x UInt8) ENGINE = Memory', analyst);
  check('analyst cannot CREATE', !aCreate.ok && /readonly/i.test(aCreate.body), aCreate.body.slice(0, 60));
  const aWrong = await ch('SELECT 1', { user: 'analyst', password: 'wrong' });
  check('analyst with a wrong password is refused', !aWrong.ok, aWrong.body.slice(0, 60));
  try {
    const tcp = execFileSync(
      'clickhouse-client',
      [
        '--port',
        String(settings.clickhouse.tcpPort),
        '--user',
        'analyst',
        '--password',
        analystPassword,
        '-q',
        'SELECT count() FROM default.proof',
      ],
      { encoding: 'utf8' },
    ).trim();
    check('analyst via clickhouse-client (native TCP port)', tcp === '1000', tcp);
  } catch (error) {
    check('analyst via clickhouse-client (native TCP port)', false, error.message.split('\n')[0]);
  }

  // --- Redis ----------------------------------------------------------------------------------
  const token = `v-${Date.now()}`;
  const set = await redis('SET', 'proof:key', token);
  await redis('RPUSH', 'proof:list', 'a', 'b', 'c');
  const aof = await redis('CONFIG', 'GET', 'appendonly');
  const save = await redis('CONFIG', 'GET', 'save');
  check('redis SET/GET', set === 'OK' && (await redis('GET', 'proof:key')) === token);
  check('redis AOF on, RDB snapshots off', aof === 'appendonly,yes' && save === 'save,', `${aof}; ${save}`);

  // --- reuse, port conflicts, external --------------------------------------------------------
  const [chAgain, redisAgain] = await Promise.all([startClickHouse(settings), startRedis(settings)]);
  check(
    'second start reuses the running servers (startedPid 0)',
    chAgain.startedPid === 0 && redisAgain.startedPid === 0,
  );
  const blocker = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => blocker.once('listening', r));
  const busy = blocker.address().port;
  const other = { ...settings, stateDir: path.join(settings.stateDir, 'conflict') };
  const chBusy = await expectReject(
    startClickHouse({ ...other, clickhouse: { ...settings.clickhouse, httpPort: busy } }),
    new RegExp(`ClickHouse: HTTP port ${busy} .* in use`),
  );
  check('clickhouse fails clearly on a taken port', chBusy === true, chBusy === true ? '' : chBusy);
  const redisBusy = await expectReject(
    startRedis({ ...other, redis: { ...settings.redis, port: busy } }),
    new RegExp(`Redis: port ${busy} .* in use`),
  );
  check('redis fails clearly on a taken port', redisBusy === true, redisBusy === true ? '' : redisBusy);
  blocker.close();
  const extCh = await startClickHouse({
    ...other,
    clickhouse: { ...settings.clickhouse, external: 'http://ch.example:8123' },
  });
  const extRedis = await startRedis({
    ...other,
    redis: { ...settings.redis, external: 'redis://r.example:6379' },
  });
  check(
    'external URLs are returned untouched',
    extCh.url === 'http://ch.example:8123' &&
      extRedis.url === 'redis://r.example:6379' &&
      !extCh.startedPid &&
      !extRedis.startedPid &&
      !fs.existsSync(other.stateDir),
  );

  // Idle: after the workload, a moment without queries (a measurement pause, not a readiness wait).
  await new Promise((r) => setTimeout(r, 3000));
  figure('clickhouse idle RSS (after checks, 3 s idle)', rssMb(chPid));
  figure('redis idle RSS (after checks, 3 s idle)', rssMb(redisPid));

  // --- stop, restart, persistence -------------------------------------------------------------
  // First stop with a client still holding an idle keep-alive connection (as a forgotten pool
  // would): 18.16 then lingers up to keep_alive_timeout (10 s) before it exits.
  const keepAlive = new http.Agent({ keepAlive: true });
  await new Promise((resolve, reject) =>
    http
      .get({ host: '127.0.0.1', port: chPort, path: '/?query=SELECT%201', agent: keepAlive }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
      .on('error', reject),
  );
  const [chStop, redisStop] = await Promise.all([
    timed(() => stopClickHouse(settings)),
    timed(() => stopRedis(settings)),
  ]);
  keepAlive.destroy();
  figure('clickhouse stop, a client holding an idle keep-alive connection', `${chStop.ms} ms`);
  figure('redis stop (SIGTERM to exit)', `${redisStop.ms} ms`);
  check(
    'clickhouse stop with an idle client connection takes <= ~keep_alive_timeout',
    chStop.ms < 13_000,
    `${chStop.ms} ms`,
  );
  const pidFilesGone =
    !fs.existsSync(path.join(settings.stateDir, 'clickhouse/clickhouse.pid')) &&
    !fs.existsSync(path.join(settings.stateDir, 'redis/redis.pid'));
  check(
    'stop ends both processes, frees ports, removes PID files',
    !isAlive(chPid) &&
      !isAlive(redisPid) &&
      !(await tcpOpen(chPort)) &&
      !(await tcpOpen(redisPort)) &&
      pidFilesGone,
  );
  const [chRestart, redisRestart] = await Promise.all([
    timed(() => startClickHouse(settings)),
    timed(() => startRedis(settings)),
  ]);
  figure('clickhouse restart with data', `${chRestart.ms} ms`);
  figure('redis restart with AOF', `${redisRestart.ms} ms`);
  check(
    'restart starts new processes',
    chRestart.value.startedPid > 0 &&
      redisRestart.value.startedPid > 0 &&
      pidOf('clickhouse/clickhouse.pid') === chRestart.value.startedPid,
  );
  const after = await ch('SELECT count(), sum(price) FROM default.proof');
  check('clickhouse data survives restart', after.body === '1000\t749250', after.body);
  check(
    'redis keys survive restart (AOF)',
    (await redis('GET', 'proof:key')) === token &&
      (await redis('LRANGE', 'proof:list', '0', '-1')) === 'a,b,c',
  );
  const secondStop = await timed(stopBoth);
  figure('clickhouse + redis stop, no client connections', `${secondStop.ms} ms`);
  check(
    'second stop clean',
    !isAlive(chRestart.value.startedPid) && !isAlive(redisRestart.value.startedPid) && secondStop.ms < 5000,
  );
  code = results.every((r) => r.ok) ? 0 : 1;
} catch (error) {
  check('proof ran to the end', false, error.stack);
  await stopBoth().catch(() => {});
}

process.stdout.write(`\n${figures.map((f) => `  ${f}`).join('\n')}\n`);
const failed = results.filter((r) => !r.ok).length;
process.stdout.write(
  `\n${failed ? 'FAIL' : 'PASS'}: ${results.length - failed}/${results.length} checks passed\n`,
);
process.exit(code);
