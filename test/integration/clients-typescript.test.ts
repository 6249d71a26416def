// The TypeScript client (clients/typescript), installed with `npm install <path>` by npm test
// (infra/local/clients.mjs), against the live service: a bulk create whose answer is lost to a
// 429 is retried with the same Idempotency-Key and creates nothing twice, every analytic answers,
// an API refusal carries code, message and request_id, and a delivered webhook's signature is
// verified by verifyWebhook as the standardwebhooks package verifies it.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ClientModule from '../../clients/typescript/src/index.js';
import { createTestKey, eventually, testClickHouse } from '../support/api.ts';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { emptySpot, type Point } from '../support/estimate-fixtures.ts';
import { flatsAround, startLossyProxy, type LossyProxy } from '../support/clients.ts';
import { startReceiver, type Receiver } from '../support/webhooks-receiver.ts';

let rls: typeof ClientModule;
let proxy: LossyProxy;
let receiver: Receiver;
let key: string;
let accountId: string;
let spot: Point;

beforeAll(async () => {
  const entry = process.env.RLS_CLIENT_TS_ENTRY;
  if (!entry) throw new Error('run with `npm test`, which installs the client (RLS_CLIENT_TS_ENTRY)');
  rls = (await import(entry)) as typeof ClientModule;
  [proxy, receiver, spot] = await Promise.all([startLossyProxy(), startReceiver(), emptySpot()]);
  // The test polls (batch, estimate): a limit above the default 60 a minute; the 429 is the proxy's.
  ({ key, account_id: accountId } = await createTestKey({
    mode: 'test',
    tier: 'enterprise',
    rateLimit: 100_000,
  }));
});

afterAll(async () => {
  await proxy?.close();
  await receiver?.close();
});

describe('TypeScript client against the live service', () => {
  it(
    'creates listings once through a 429 and its retry, then reads every analytic',
    { timeout: 120_000 },
    async () => {
      const client = rls.createClient({ baseUrl: proxy.baseUrl, apiKey: key, baseDelayMs: 100 });
      const created = await client.bulkCreateListings({ body: { listings: flatsAround(spot) } });
      // The service handled both requests; the client saw a 429, waited, retried with the same key.
      expect(proxy.bulk).toHaveLength(2);
      expect(proxy.bulk[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(proxy.bulk[1]!.idempotencyKey).toBe(proxy.bulk[0]!.idempotencyKey);
      expect(proxy.bulk[0]!.status).toBe(201);
      const lost = JSON.parse(proxy.bulk[0]!.body);
      expect(created.batch_id).toBe(lost.batch_id);
      await eventually(async () => {
        const batch = await client.getBatch({ batch_id: created.batch_id });
        return batch.status === 'completed' ? batch : undefined;
      }, 30_000);
      const [stored] = await queryRows<{ n: string }>(
        testClickHouse(),
        'SELECT count() AS n FROM listings FINAL WHERE account_id = {account:String}',
        { account: accountId },
      );
      expect(Number(stored?.n)).toBe(6); // nothing created twice

      const city = { city: 'dar_es_salaam', type: 'apartment' } as const;
      expect((await client.getPricing(city)).summary).toBeDefined();
      const heatmap = await client.getHeatmap({ bounds: '39.2,-6.9,39.35,-6.7', type: 'apartment' });
      expect(heatmap).toHaveProperty('cells');
      expect((await client.getVelocity(city)).definition).toMatch(/^rls-velocity/);
      expect(['insufficient_history', 'provisional', 'ok']).toContain(
        (await client.getSeasonality(city)).status,
      );
      expect((await client.getMarketShare(city)).summary.own_listings).toBeGreaterThanOrEqual(0);
      const estimate = await eventually(
        () =>
          client
            .getRentEstimate({ lat: spot.latitude, lng: spot.longitude, type: 'apartment', bedrooms: 2 })
            .catch((error) =>
              error instanceof rls.RlsApiError && error.code === 'insufficient_comparables'
                ? undefined
                : Promise.reject(error),
            ),
        30_000,
        'estimate with the new comparables',
      );
      expect(estimate.comparables.length).toBeGreaterThanOrEqual(5);
      const ids = created.results.map((r) => r.listing_id).filter((id): id is string => Boolean(id));
      const own = await client.getListingRentEstimate({ listing_id: ids[0]! });
      expect(own.listing.listing_id).toBe(ids[0]);
    },
  );

  it('raises the API error with its code, message and request_id', async () => {
    const client = rls.createClient({ baseUrl: proxy.baseUrl, apiKey: key });
    const error = await client
      .getVelocity({ city: 'atlantis' as never, type: 'apartment' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(rls.RlsApiError);
    const apiError = error as InstanceType<typeof rls.RlsApiError>;
    expect(apiError.status).toBe(400);
    expect(apiError.code).toBe('invalid_parameter');
    expect(apiError.message).toMatch(/city/);
    expect(apiError.requestId).toMatch(/\S+/);
  });

  it(
    'registers a webhook and verifies a delivered signature as standardwebhooks does',
    { timeout: 60_000 },
    async () => {
      const client = rls.createClient({ baseUrl: proxy.baseUrl, apiKey: key });
      const hook = await client.registerWebhook({ body: { url: receiver.url } });
      expect(hook.secret).toMatch(/^whsec_/);
      await client.sendWebhookTest({ id: hook.id, body: {} });
      const delivery = await eventually(async () => receiver.received[0], 30_000, 'the test event delivered');
      const headers = delivery.headers as Record<string, string>;
      const event = rls.verifyWebhook(delivery.body, headers, hook.secret) as { type: string };
      expect(event.type).toBe('webhook.test');
      expect(new Webhook(hook.secret).verify(delivery.body, headers)).toEqual(event);
      // A changed body or another secret: both refuse.
      const tampered = delivery.body.replace('webhook.test', 'webhook.tost');
      expect(() => rls.verifyWebhook(tampered, headers, hook.secret)).toThrow(rls.WebhookVerificationError);
      expect(() => new Webhook(hook.secret).verify(tampered, headers)).toThrow();
      const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      expect(() => rls.verifyWebhook(delivery.body, headers, other)).toThrow(rls.WebhookVerificationError);
      // Signatures made by the standardwebhooks package verify here; an old timestamp does not.
      const signer = new Webhook(hook.secret);
      for (let i = 0; i < 20; i++) {
        const payload = JSON.stringify({ type: 'sample', n: i, text: 'ñ€'.repeat(i) });
        const at = new Date(Math.floor(Date.now() / 1000) * 1000);
        const signed = {
          'webhook-id': `msg_${i}`,
          'webhook-timestamp': String(at.getTime() / 1000),
          'webhook-signature': signer.sign(`msg_${i}`, at, payload),
        };
        expect(rls.verifyWebhook(payload, signed, hook.secret)).toEqual(JSON.parse(payload));
      }
      const later = Date.now() + 10 * 60_000;
      expect(() => rls.verifyWebhook(delivery.body, headers, hook.secret, { now: later })).toThrow(
        /timestamp/,
      );
    },
  );
});
