// /healthz's node names: a configured node that refuses connections, that the Kafka metadata no
// longer lists, or that the Redis Cluster flags as failed is named by its place in the list.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaNodesDown, redisNodesDown } from '../../common/health-nodes.ts';

const servers: net.Server[] = [];
const open: string[] = [];
let closed = '';

beforeAll(async () => {
  for (let i = 0; i < 3; i++) {
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    open.push(`127.0.0.1:${(server.address() as net.AddressInfo).port}`);
  }
  // A port that was just free: nothing listens there.
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closed = `127.0.0.1:${(probe.address() as net.AddressInfo).port}`;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(() => servers.forEach((s) => s.close()));

const broker = (address: string) => ({ host: address.split(':')[0]!, port: Number(address.split(':')[1]) });

describe('kafkaNodesDown', () => {
  it('names a broker that refuses connections and one missing from the metadata', async () => {
    const configured = [open[0]!, closed, open[1]!];
    const down = await kafkaNodesDown(configured, [broker(open[0]!)]);
    expect(down.map((d) => [d.node, d.address, d.reason])).toEqual([
      ['kafka-2', closed, 'refuses connections'],
      ['kafka-3', open[1], 'not in the cluster metadata'],
    ]);
  });

  it('names nothing when every broker answers and is listed', async () => {
    expect(await kafkaNodesDown(open, open.map(broker))).toEqual([]);
  });
});

describe('redisNodesDown', () => {
  it('names nodes the cluster flags fail or fail?, and seeds that refuse connections', async () => {
    const configured = [open[0]!, open[1]!, open[2]!, closed];
    const clusterNodes = [
      `a1 ${open[0]}@1 myself,master - 0 0 1 connected 0-5460`,
      `b2 ${open[1]}@2 master,fail - 0 0 2 connected`,
      `c3 ${open[2]}@3 slave,fail? a1 0 0 3 connected`,
      `d4 ${closed}@4 master - 0 0 4 connected 5461-16383`,
    ].join('\n');
    const down = await redisNodesDown(configured, clusterNodes);
    expect(down.map((d) => [d.node, d.reason])).toEqual([
      ['redis-2', "failed in the cluster's view"],
      ['redis-3', "suspected failed in the cluster's view"],
      ['redis-4', 'refuses connections'],
    ]);
  });
});
