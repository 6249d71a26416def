// Every port the local stack listens on is one the services' outbound calls never reach, even where
// OUTBOUND_ALLOW_CIDRS opens loopback (local stacks, tests): an image URL at ClickHouse's internal
// native port aborted the warehouse. The list comes from the stack's own settings, and this test
// fails when a port setting appears that the list does not carry.
import { describe, expect, it } from 'vitest';
import { outboundEnvSchema } from '../../common/env.ts';
import { checkTarget, outboundPolicy, servicePorts } from '../../common/outbound/index.ts';
import { clickhouseNodes } from '../../infra/local/clickhouse.mjs';
import { readSettings, serviceEnv, stackPorts, type StackSettings } from '../../infra/local/settings.mjs';

const topologies: Record<string, NodeJS.ProcessEnv> = {
  single: { RLS_PORT_BASE: '30000' },
  cluster: { RLS_PORT_BASE: '30500', RLS_TOPOLOGY: 'cluster' },
  'three shards': { RLS_PORT_BASE: '31000', CLICKHOUSE_SHARDS: '3', STREAM_METRICS_PORT: '31999' },
};

/** Every number under a key that names a port, anywhere in the settings (the port base is none). */
function portSettings(value: unknown, key = ''): number[] {
  if (Array.isArray(value)) return value.flatMap((item) => portSettings(item, key));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([name, inner]) => portSettings(inner, name));
  return typeof value === 'number' && /port/i.test(key) && key !== 'portBase' ? [value] : [];
}

describe.each(Object.entries(topologies))('stack ports (%s)', (_name, env) => {
  const settings: StackSettings = readSettings({ ...env }, { profile: 'test' });
  const ports = stackPorts(settings);

  it('lists every port setting, every shard server (its HTTP, native and internal native port) and, in a Redis Cluster, each bus port', () => {
    for (const port of portSettings(settings)) expect(ports, `setting ${port}`).toContain(port);
    for (const node of clickhouseNodes(settings))
      for (const port of [node.httpPort, node.tcpPort, node.internalTcpPort])
        expect(ports, `${node.name} ${port}`).toContain(port);
    const bus = settings.topology === 'cluster' ? settings.redis.ports.map((port) => port + 10_000) : [];
    for (const port of bus) expect(ports, `Redis bus ${port}`).toContain(port);
    expect(ports).toContain(settings.clickhouse.tcpPort + 10); // what the native front forwards to
  });

  it('reaches the services in OUTBOUND_PROTECTED_PORTS, and their policy refuses each port on loopback, saying why, while an unused loopback port stays open', async () => {
    const services = serviceEnv(settings);
    const env = outboundEnvSchema.parse({ ...services, OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
    expect(servicePorts(env)).toEqual(expect.arrayContaining(ports));
    const policy = outboundPolicy(env);
    for (const port of ports) {
      const refused = await checkTarget(`http://127.0.0.1:${port}/a.jpg`, policy).catch(
        (error: unknown) => error,
      );
      expect(refused, String(port)).toMatchObject({
        code: 'forbidden_address',
        message: expect.stringMatching(new RegExp(`port ${port} is one of the service's own components`)),
      });
    }
    const unused = 45_678;
    expect(ports).not.toContain(unused);
    expect(await checkTarget(`http://127.0.0.1:${unused}/a.jpg`, policy)).toMatchObject({ port: unused });
  });
});
