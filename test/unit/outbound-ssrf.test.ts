// The SSRF-safe outbound client: refused targets are refused before any socket opens; accepted
// targets are reached at exactly the address that was checked; redirects are not followed.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createAddressPolicy,
  createOutboundClient,
  OutboundRefusedError,
  servicePorts,
  OutboundTransportError,
  type Resolver,
} from '../../common/outbound/index.ts';
import { outboundEnvSchema } from '../../common/env.ts';
import { createLogger } from '../../common/logger.ts';
import { setTimeout as sleep } from 'node:timers/promises';

interface Recorder {
  server: http.Server;
  port: number;
  connections: number;
  hosts: string[];
}

async function recordingServer(
  host: string,
  handler: http.RequestListener = (_req, res) => res.end('ok'),
): Promise<Recorder> {
  const server = http.createServer((req, res) => {
    rec.hosts.push(req.headers.host ?? '');
    handler(req, res);
  });
  const rec: Recorder = { server, port: 0, connections: 0, hosts: [] };
  server.on('connection', () => rec.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  rec.port = (server.address() as AddressInfo).port;
  return rec;
}

const closeServer = (rec: Recorder) =>
  new Promise<void>((resolve) => {
    rec.server.closeAllConnections();
    rec.server.close(() => resolve());
  });

const staticResolver =
  (answers: Record<string, string[]>, calls: string[] = []): Resolver =>
  async (hostname) => {
    calls.push(hostname);
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: net.isIP(address) }));
  };

describe('address policy (security)', () => {
  const policy = createAddressPolicy([]);
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.169.254',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.2.10',
    '198.51.100.7',
    '203.0.113.9',
    '198.18.0.1',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fec0::1',
    'ff02::1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::1',
    '2001:db8::1',
    '2001::1',
    '100::1',
  ])('refuses %s', (address) => {
    expect(policy.check(address, 443).allowed).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '64:ff9b::808:808', '2002:808:808::1'])(
    'accepts public %s',
    (address) => {
      expect(policy.check(address, 443).allowed).toBe(true);
    },
  );

  it('opens exactly the OUTBOUND_ALLOW_CIDRS ranges, including their IPv4-mapped forms', () => {
    const open = createAddressPolicy(['127.0.0.0/8', '10.9.0.0/16']);
    expect(open.check('127.0.0.1', 80).allowed).toBe(true);
    expect(open.check('::ffff:127.0.0.1', 80).allowed).toBe(true);
    expect(open.check('10.9.3.4', 80).allowed).toBe(true);
    expect(open.check('10.8.3.4', 80).allowed).toBe(false);
    expect(open.check('::1', 80).allowed).toBe(false);
    expect(open.explicitlyAllowed('127.0.0.5', 80)).toBe(true);
    expect(open.explicitlyAllowed('93.184.216.34', 80)).toBe(false);
  });

  // Allowing 127.0.0.0/8 opened ClickHouse's HTTP port on the same host.
  it("an entry without ports still refuses the service's own ports; public hosts keep every port", () => {
    const open = createAddressPolicy(['127.0.0.0/8', '::1/128'], { servicePorts: [8123, 9092, 6379, 8080] });
    for (const port of [8123, 9092, 6379, 8080]) {
      expect(open.check('127.0.0.1', port).allowed, String(port)).toBe(false);
      expect(open.check('::ffff:127.0.0.1', port).allowed, String(port)).toBe(false);
      expect(open.check('::1', port).allowed, String(port)).toBe(false);
      expect(open.explicitlyAllowed('127.0.0.1', port)).toBe(false);
      expect(open.check('93.184.216.34', port).allowed, String(port)).toBe(true);
    }
    expect(open.check('127.0.0.1', 8124).allowed).toBe(true);
    const refused = open.check('127.0.0.1', 8123);
    expect(!refused.allowed && refused.reason).toMatch(/port 8123 is not open.*own components/);
  });

  it('an entry with a port or port range opens exactly those ports, service ports included', () => {
    const open = createAddressPolicy(['127.0.0.0/8:40000-65535', '10.0.0.7:8123', 'fd00::/8:443'], {
      servicePorts: [8123],
    });
    expect(open.check('127.0.0.1', 40000).allowed).toBe(true);
    expect(open.check('127.0.0.1', 65535).allowed).toBe(true);
    expect(open.check('127.0.0.1', 39999).allowed).toBe(false);
    expect(open.check('127.0.0.1', 8123).allowed).toBe(false);
    expect(open.check('10.0.0.7', 8123).allowed).toBe(true); // named explicitly: the operator's choice
    expect(open.check('10.0.0.8', 8123).allowed).toBe(false);
    expect(open.check('fd00::1', 443).allowed).toBe(true);
    expect(open.check('fd00::1', 80).allowed).toBe(false);
    expect(open.explicitlyAllowed('127.0.0.9', 50000)).toBe(true);
    expect(open.explicitlyAllowed('127.0.0.9', 80)).toBe(false);
  });

  it('error: rejects malformed CIDRs at startup', () => {
    expect(() => createAddressPolicy(['127.0.0.1/33'])).toThrow(/prefix/);
    expect(() => createAddressPolicy(['localhost/8'])).toThrow(/CIDR/);
    expect(() => createAddressPolicy(['127.0.0.0/8:0-80'])).toThrow(/port/);
    expect(() => createAddressPolicy(['127.0.0.0/8:90-80'])).toThrow(/port/);
    expect(() => createAddressPolicy(['127.0.0.0/8:1-65536'])).toThrow(/port/);
    expect(() => createAddressPolicy(['127.0.0.0/8:http'])).toThrow(/CIDR/);
  });
});

describe('outbound client with an empty allow-list (security)', () => {
  let v4: Recorder;
  let v6: Recorder | undefined;
  const connectSpy = vi.spyOn(net.Socket.prototype, 'connect');

  beforeAll(async () => {
    v4 = await recordingServer('127.0.0.1');
    v6 = await recordingServer('::1').catch(() => undefined); // hosts without IPv6 loopback
  });
  afterAll(async () => {
    await closeServer(v4);
    if (v6) await closeServer(v6);
    connectSpy.mockRestore();
  });
  afterEach(() => connectSpy.mockClear());

  const resolver = staticResolver({
    'private.example.com': ['127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.1'],
    'v6private.example.com': ['fd00::1'],
  });
  const client = createOutboundClient({ policy: createAddressPolicy([]), resolver });

  const corpus = () => [
    `http://127.0.0.1:${v4.port}/`,
    `http://[::1]:${v6?.port ?? v4.port}/`,
    `http://[::ffff:127.0.0.1]:${v4.port}/`,
    `http://2130706433:${v4.port}/`,
    `http://0x7f000001:${v4.port}/`,
    `http://0177.0.0.1:${v4.port}/`,
    `http://127.1:${v4.port}/`,
    `http://0.0.0.0:${v4.port}/`,
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://172.16.5.4/',
    'http://192.168.0.1/',
    'http://100.64.0.1/',
    'http://[fc00::1]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[64:ff9b::7f00:1]/',
    `http://private.example.com:${v4.port}/`,
    'https://metadata.example.com/',
    'https://mixed.example.com/',
    'https://v6private.example.com/',
  ];

  it('refuses the whole SSRF corpus with no socket opened', async () => {
    for (const url of corpus()) {
      const error = await client.request({ url, timeoutMs: 1_000 }).catch((e: unknown) => e);
      expect(error, url).toBeInstanceOf(OutboundRefusedError);
      expect((error as OutboundRefusedError).code, url).toBe('forbidden_address');
    }
    expect(connectSpy).not.toHaveBeenCalled();
    expect(v4.connections).toBe(0);
    expect(v6?.connections ?? 0).toBe(0);
  });

  // "private.example.com resolves to 127.0.0.1" let any integrator map our DNS.
  it('security: refusals say "not a public address"; only the log hears what the name resolved to', async () => {
    const logged: string[] = [];
    const logging = createOutboundClient({
      policy: createAddressPolicy([]),
      resolver,
      logger: createLogger('info', {}, (line) => logged.push(line)),
    });
    for (const url of [`http://private.example.com:${v4.port}/`, 'https://mixed.example.com/']) {
      const error = (await logging
        .request({ url, timeoutMs: 1_000 })
        .catch((e: unknown) => e)) as OutboundRefusedError;
      expect(error.code).toBe('forbidden_address');
      expect(error.message).toMatch(/is not a public address/);
      expect(error.message).not.toMatch(/127\.0\.0\.1|10\.0\.0\.1|resolves/);
      expect(error.detail).toMatch(/resolves to (127\.0\.0\.1|10\.0\.0\.1)/);
    }
    expect(logged.join('\n')).toMatch(/private\.example\.com resolves to 127\.0\.0\.1/);
    expect(connectSpy).not.toHaveBeenCalled();
  });

  // The lookup ran outside the deadline, so a slow resolver held a slot for as long as it liked.
  it('error: gives up on a DNS answer at the call deadline', async () => {
    const slow = createOutboundClient({
      policy: createAddressPolicy([]),
      resolver: () =>
        new Promise((resolve) => setTimeout(() => resolve([{ address: '93.184.216.34', family: 4 }]), 5_000)),
    });
    const started = Date.now();
    const error = await slow
      .request({ url: 'https://slow-dns.example.com/', timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect((error as OutboundRefusedError).code).toBe('unresolvable_host');
    expect((error as Error).message).toMatch(/did not resolve within 200 ms/);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(connectSpy).not.toHaveBeenCalled();
  });

  it('refuses credentials, other schemes and unresolvable names before connecting', async () => {
    const cases: [string, string][] = [
      ['https://user:pass@hooks.example.com/', 'credentials_in_url'],
      ['ftp://hooks.example.com/', 'unsupported_scheme'],
      ['file:///etc/passwd', 'unsupported_scheme'],
      ['not a url', 'invalid_url'],
      ['https://nowhere.invalid/', 'unresolvable_host'],
    ];
    for (const [url, code] of cases) {
      const error = await client.request({ url, timeoutMs: 1_000 }).catch((e: unknown) => e);
      expect((error as OutboundRefusedError).code, url).toBe(code);
    }
    expect(connectSpy).not.toHaveBeenCalled();
  });
});

describe('outbound client with 127.0.0.1/32 allowed', () => {
  let target: Recorder;
  let redirectTarget: Recorder;
  let redirector: Recorder;
  let big: Recorder;
  let silent: Recorder;

  beforeAll(async () => {
    target = await recordingServer('127.0.0.1', (req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end(`host=${req.headers.host}`);
    });
    redirectTarget = await recordingServer('127.0.0.2');
    redirector = await recordingServer('127.0.0.1', (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.2:${redirectTarget.port}/` });
      res.end();
    });
    big = await recordingServer('127.0.0.1', (_req, res) => res.end(Buffer.alloc(1024 * 1024, 97)));
    silent = await recordingServer('127.0.0.1', () => undefined);
  });
  afterAll(async () => {
    for (const rec of [target, redirectTarget, redirector, big, silent]) await closeServer(rec);
  });

  const calls: string[] = [];
  // First answer is the allowed address; a rebinding attacker would answer differently the second time.
  let answered = 0;
  const rebinding: Resolver = async (hostname) => {
    calls.push(hostname);
    answered++;
    return [{ address: answered === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
  };
  const client = createOutboundClient({ policy: createAddressPolicy(['127.0.0.1/32']), resolver: rebinding });

  it('happy: connects to the checked address once, keeping the name in Host', async () => {
    const response = await client.request({
      url: `http://hooks.example.test:${target.port}/x`,
      timeoutMs: 2_000,
    });
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe(`host=hooks.example.test:${target.port}`);
    expect(response.target.address).toBe('127.0.0.1');
    expect(calls).toEqual(['hooks.example.test']); // one lookup: no second answer can be used
  });

  it('security: does not follow a redirect to a private address', async () => {
    const response = await client.request({ url: `http://127.0.0.1:${redirector.port}/`, timeoutMs: 2_000 });
    expect(response.status).toBe(302);
    await sleep(100);
    expect(redirectTarget.connections).toBe(0);
  });

  it('security: refuses 127.0.0.2, outside the allowed /32', async () => {
    const error = await client
      .request({ url: `http://127.0.0.2:${redirectTarget.port}/`, timeoutMs: 1_000 })
      .catch((e: unknown) => e);
    expect((error as OutboundRefusedError).code).toBe('forbidden_address');
    expect(redirectTarget.connections).toBe(0);
  });

  it('caps the response body', async () => {
    const response = await client.request({
      url: `http://127.0.0.1:${big.port}/`,
      timeoutMs: 2_000,
      maxBodyBytes: 1000,
    });
    expect(response.body.length).toBe(1000);
    expect(response.truncated).toBe(true);
  });

  it('error: gives up at the deadline', async () => {
    const started = Date.now();
    const error = await client
      .request({ url: `http://127.0.0.1:${silent.port}/`, timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundTransportError);
    expect((error as OutboundTransportError).code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('service ports', () => {
  it("derives the component ports from the connection settings, with each scheme's default", () => {
    const parse = (env: Record<string, string>) =>
      servicePorts(
        outboundEnvSchema.parse({
          KAFKA_BROKERS: 'k1:19092,k2',
          CLICKHOUSE_URL: 'https://ch.internal',
          REDIS_URL: 'redis://:secret@cache:6380/0',
          ...env,
        }),
      );
    expect(parse({ PORT: '9000' })).toEqual([443, 6380, 9000, 9092, 19092]);
    expect(parse({})).toEqual([443, 6380, 8080, 8081, 8082, 9092, 19092]);
    expect(parse({ PORT: '9000', TLS_CERT_FILE: '/x', CLICKHOUSE_TCP_PORT: '9440' })).toEqual([
      443, 6380, 9000, 9092, 9363, 9440, 19092,
    ]);
    expect(parse({ CLICKHOUSE_URL: 'http://127.0.0.1:8123', PORT: '8080', TLS_PORT: '8443' })).toEqual([
      6380, 8080, 8123, 8443, 9092, 19092,
    ]);
  });

  // Shards 2+ and Redis Cluster nodes beyond REDIS_URL's were reachable, as was every port the
  // local stack opens without a connection setting (ClickHouse's internal native port, metrics).
  it('adds every ClickHouse shard, every Redis Cluster node and OUTBOUND_PROTECTED_PORTS', () => {
    const raw = {
      KAFKA_BROKERS: '127.0.0.1:19092',
      CLICKHOUSE_URL: 'http://127.0.0.1:18123',
      CLICKHOUSE_NODES: 'http://127.0.0.1:18123,http://127.0.0.1:18124',
      REDIS_URL: 'redis://127.0.0.1:18379',
      REDIS_CLUSTER_NODES: '127.0.0.1:18379,127.0.0.1:18380,127.0.0.1:18381',
      PORT: '8080',
      OUTBOUND_PROTECTED_PORTS: '18910, 8090,8091',
    };
    expect(servicePorts(outboundEnvSchema.parse(raw))).toEqual([
      8080, 8090, 8091, 18123, 18124, 18379, 18380, 18381, 18910, 19092,
    ]);
    expect(() => outboundEnvSchema.parse({ ...raw, OUTBOUND_PROTECTED_PORTS: '80,http' })).toThrow();
  });
});
