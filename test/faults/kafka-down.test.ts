// Kafka down during ingest (fault): the API must not accept what it cannot publish. It answers 503
// naming Kafka (retriable), /healthz names Kafka, and once the broker is back the same request
// creates every listing — not "duplicate" of the failed attempt — and each is stored exactly once.
import { afterAll, describe, expect, it } from 'vitest';
import { startKafka, stopKafka } from '../../infra/local/kafka.mjs';
import { api, createTestKey, eventually, sampleListing } from '../support/api.ts';
import { expectExactlyOnce } from '../support/fault-stream.ts';
import { stackSettings as settings } from '../support/fault-stack-settings.ts';

let kafkaStopped = false;
afterAll(async () => {
  if (kafkaStopped) await startKafka(settings); // leave the stack whole for the next file
});

describe('kafka down (fault)', () => {
  it('error: 503 while the broker is down, then the retried request creates each listing once', async () => {
    expect(process.env.KAFKA_BROKERS).toBe(`127.0.0.1:${settings.kafka.port}`);
    const { key } = await createTestKey({ tier: 'enterprise', rateLimit: 100_000 });
    const body = { listings: [sampleListing(), sampleListing(), sampleListing()] };

    await stopKafka(settings);
    kafkaStopped = true;
    const refused = await api('POST', '/api/v1/listings/bulk', { key, body });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({
      code: 'dependency_unavailable',
      retriable: true,
      details: { component: 'kafka' },
    });
    expect(refused.body.error.request_id).toMatch(/\S/);
    const health = await api('GET', '/healthz', {
      headers: { 'X-Operator-Token': process.env.OPERATOR_TOKEN ?? '' },
    });
    expect(health.status).toBe(503);
    expect(health.body.failing).toContain('kafka');

    await startKafka(settings);
    kafkaStopped = false;
    const accepted = await eventually(
      async () => {
        const response = await api('POST', '/api/v1/listings/bulk', { key, body });
        return response.status === 201 ? response : undefined;
      },
      90_000,
      'the API to accept listings again',
    );
    // The failed attempt released its claims: the retry creates, it is not told "duplicate".
    expect(accepted.body.results.map((r: { status: string }) => r.status)).toEqual([
      'created',
      'created',
      'created',
    ]);
    await expectExactlyOnce(accepted.body.results.map((r: { listing_id: string }) => r.listing_id));
    await eventually(
      async () => ((await api('GET', '/healthz')).status === 200 ? true : undefined),
      90_000,
      '/healthz ok again',
    );
  }, 300_000);
});
