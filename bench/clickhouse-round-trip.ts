// npm run bench:round-trip — what one small statement costs the API process around ClickHouse's
// own work: `SELECT 1` (and a few rows) sent back to back through @clickhouse/client as the
// services configure it, through its variants (no response compression, compact JSON rows,
// longer socket keep-alive), and over plain node:http with a keep-alive agent. Per variant: wall p50
// and p90 per call and this process's CPU per call (process.cpuUsage), rounds interleaved so a
// shared machine's noise falls on every variant alike. Knobs: BENCH_CALLS (400 per round),
// BENCH_ROUNDS (3), CLICKHOUSE_URL.
import http from 'node:http';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createClickHouse } from '../common/clients/clickhouse.ts';
import { benchClickHouse } from './clickhouse-server.ts';

const calls = Number(process.env.BENCH_CALLS ?? 400);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const config = { ...benchClickHouse, database: 'default' };
const services = createClickHouse(config);
const plain = createClient({
  url: config.url,
  username: config.username,
  password: config.password,
  compression: { request: false, response: false },
  log: { level: 127 as never },
});
const longKeepAlive = createClient({
  url: config.url,
  username: config.username,
  password: config.password,
  compression: { request: false, response: false },
  keep_alive: { enabled: true, idle_socket_ttl: 60_000 },
  log: { level: 127 as never },
});
const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
const ownAgent = createClient({
  url: config.url,
  username: config.username,
  password: config.password,
  compression: { request: false, response: false },
  http_agent: new http.Agent({ keepAlive: true, maxSockets: 10 }),
  log: { level: 127 as never },
});
const noKeepAlive = createClient({
  url: config.url,
  username: config.username,
  password: config.password,
  compression: { request: false, response: false },
  keep_alive: { enabled: false },
  log: { level: 127 as never },
});
const base = new URL(config.url);
const auth = `Basic ${Buffer.from(`${config.username}:${config.password ?? ''}`).toString('base64')}`;

function overHttp(query: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        path: `/?query=${encodeURIComponent(`${query} FORMAT JSONEachRow`)}`,
        method: 'GET',
        agent,
        headers: { authorization: auth },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve(
            Buffer.concat(chunks)
              .toString()
              .split('\n')
              .filter(Boolean)
              .map((line) => JSON.parse(line)),
          ),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const viaClient =
  (client: ClickHouseClient, format: 'JSONEachRow' | 'JSONCompactEachRow') => async (query: string) =>
    (await client.query({ query, format })).json();

const statements = {
  'SELECT 1': 'SELECT 1 AS x',
  '100 rows': 'SELECT number AS n, toString(number) AS s FROM system.numbers LIMIT 100',
};
const variants: Record<string, (query: string) => Promise<unknown>> = {
  'client as the services (gzip responses)': viaClient(services, 'JSONEachRow'),
  'client as the services, enable_http_compression 0': async (query: string) =>
    (
      await services.query({
        query,
        format: 'JSONEachRow',
        clickhouse_settings: { enable_http_compression: 0 },
      })
    ).json(),
  'client, no response compression': viaClient(plain, 'JSONEachRow'),
  'client, no compression, JSONCompactEachRow': viaClient(plain, 'JSONCompactEachRow'),
  'client, no compression, idle_socket_ttl 60 s': viaClient(longKeepAlive, 'JSONEachRow'),
  'client, no compression, own http.Agent': viaClient(ownAgent, 'JSONEachRow'),
  'client, no compression, no keep-alive': viaClient(noKeepAlive, 'JSONEachRow'),
  'node:http, keep-alive agent': overHttp,
};

const results = new Map<string, { walls: number[]; cpuUs: number }>();
for (let round = 0; round < rounds; round++) {
  for (const [statementName, query] of Object.entries(statements)) {
    for (const [variantName, run] of Object.entries(variants)) {
      const key = `${statementName} | ${variantName}`;
      const entry = results.get(key) ?? { walls: [], cpuUs: 0 };
      for (let i = 0; i < 20; i++) await run(query); // warm sockets
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < calls; i++) {
        const t0 = performance.now();
        await run(query);
        entry.walls.push(performance.now() - t0);
      }
      const cpu = process.cpuUsage(cpu0);
      entry.cpuUs += cpu.user + cpu.system;
      results.set(key, entry);
    }
  }
}
for (const [key, { walls, cpuUs }] of results) {
  walls.sort((a, b) => a - b);
  const at = (p: number) => walls[Math.floor(p * (walls.length - 1))]!.toFixed(2);
  process.stdout.write(
    `[round-trip] ${key.padEnd(62)} p50 ${at(0.5)} p90 ${at(0.9)} ms  client CPU ${(cpuUs / walls.length / 1000).toFixed(3)} ms/call\n`,
  );
}
await Promise.all([services, plain, longKeepAlive, ownAgent, noKeepAlive].map((c) => c.close()));
agent.destroy();
