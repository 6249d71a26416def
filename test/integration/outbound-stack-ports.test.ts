// The test run opens loopback to outbound calls (OUTBOUND_ALLOW_CIDRS=127.0.0.0/8), as a local stack
// may: a webhook or image URL must still reach none of the stack's own ports. An image URL at
// ClickHouse's internal native port (behind the native front) used to abort the warehouse. The
// ports are taken here from the stack's settings, component by component, not from the list the
// services get, so a port the list forgets fails this test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { clickhouseNodes } from '../../infra/local/clickhouse.mjs';
import { readSettings } from '../../infra/local/settings.mjs';
import {
  api,
  baseUrl,
  createTestKey,
  env,
  eventually,
  sampleListing,
  testClickHouse,
} from '../support/api.ts';
import { startReceiver } from '../support/webhooks-receiver.ts';

const settings = readSettings({ ...process.env, CLICKHOUSE_URL: '' }, { profile: 'test' });
const local = env.CLICKHOUSE_URL === `http://127.0.0.1:${settings.clickhouse.httpPort}`;

/** Every port the local stack listens on, by component. */
function stackPortsByComponent(): [string, number][] {
  return [
    ...clickhouseNodes(settings).flatMap((node): [string, number][] => [
      [`${node.name} HTTP`, node.httpPort],
      [`${node.name} native (front)`, node.tcpPort],
      [`${node.name} native (internal)`, node.internalTcpPort],
    ]),
    ...settings.kafka.nodes.flatMap((node): [string, number][] => [
      [`kafka-${node.id} broker`, node.port],
      [`kafka-${node.id} controller`, node.controllerPort],
    ]),
    ...settings.redis.ports.map((port, i): [string, number] => [`redis-${i + 1}`, port]),
    ['API', Number(new URL(baseUrl()).port)],
    // The suite's own workers (global-setup.ts); workers the tests start bind any free port.
    ['stream metrics', Number(process.env.RLS_TEST_STREAM_METRICS_PORT)],
    ['images metrics', Number(process.env.RLS_TEST_IMAGES_METRICS_PORT)],
  ];
}

describe.runIf(local)("outbound calls and the local stack's own ports (security)", () => {
  const ports = stackPortsByComponent();

  it("refuses a webhook at each port of the stack, saying it is one of the service's own; a receiver on an unused loopback port gets its test event", async () => {
    const { key } = await createTestKey({ mode: 'test' });
    for (const [component, port] of ports) {
      const refused = await api('POST', '/api/v1/webhooks/register', {
        key,
        body: { url: `http://127.0.0.1:${port}/hook` },
      });
      expect([component, refused.status]).toEqual([component, 400]);
      expect(refused.body.error.details[0], component).toMatchObject({
        field: 'url',
        code: 'forbidden_address',
        message: expect.stringMatching(new RegExp(`port ${port} is one of the service's own components`)),
      });
    }
    const receiver = await startReceiver();
    try {
      const created = await api('POST', '/api/v1/webhooks/register', { key, body: { url: receiver.url } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const queued = await api('POST', `/api/v1/webhooks/${created.body.id}/test`, { key, body: {} });
      expect(queued.status).toBe(202);
      await eventually(async () => (receiver.received.length ? true : undefined), 30_000, 'the test event');
    } finally {
      await receiver.close();
    }
  });

  it('refuses an image URL at each port of the stack without connecting, while an image on an unused loopback port is checked', async () => {
    const server = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const receiverPort = (server.address() as AddressInfo).port;
      const images = [
        `http://127.0.0.1:${receiverPort}/ok.jpg`,
        ...ports.map(([, port]) => `http://127.0.0.1:${port}/a.jpg`),
      ];
      const { key } = await createTestKey();
      const created = await api('POST', '/api/v1/listings/bulk', {
        key,
        body: { listings: [sampleListing({ images })] },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const listingId = created.body.results[0].listing_id as string;
      const rows = await eventually(
        async () => {
          const found = await queryRows<{
            image_index: number;
            method: string;
            is_ok: number;
            error: string;
          }>(
            testClickHouse(),
            `SELECT image_index, method, is_ok, error
             FROM image_checks FINAL WHERE listing_id = {id:UUID} ORDER BY image_index`,
            { id: listingId },
          );
          return found.length === images.length ? found : undefined;
        },
        60_000,
        'image_checks rows',
      );
      expect(rows[0]).toMatchObject({ method: 'HEAD', is_ok: 1 });
      for (const [i, [component, port]] of ports.entries()) {
        const row = rows[i + 1]!;
        expect([component, row.method, row.is_ok], row.error).toEqual([component, 'none', 0]);
        expect(row.error, component).toMatch(
          new RegExp(`refused: forbidden_address: .*port ${port} is one of the service's own components`),
        );
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 90_000);
});
