// The Python client (clients/python, `rls_client`), installed with pip by npm test
// (infra/local/clients.mjs), against the live service: test/support/python_live.py runs the
// scenario (a bulk create whose answer is lost to a 429 is retried with the same Idempotency-Key,
// every analytic, an API refusal, a delivered webhook verified as the standardwebhooks PyPI
// package verifies it) and prints what it saw; the proxy and ClickHouse say what really happened.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/local/settings.mjs';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { createTestKey, testClickHouse } from '../support/api.ts';
import { emptySpot } from '../support/estimate-fixtures.ts';
import { startLossyProxy, type LossyProxy } from '../support/clients.ts';

let proxy: LossyProxy;

beforeAll(async () => {
  proxy = await startLossyProxy();
});

afterAll(async () => {
  await proxy?.close();
});

describe('Python client against the live service', () => {
  it(
    'creates once through a 429, reads every analytic, raises API errors, verifies webhooks',
    { timeout: 180_000 },
    async () => {
      const python = process.env.RLS_CLIENT_PYTHON;
      const pythonPath = process.env.RLS_CLIENT_PYTHONPATH;
      if (!python || !pythonPath) throw new Error('run with `npm test`, which installs the client');
      const [{ key, account_id: accountId }, spot] = await Promise.all([
        // The script polls (batch, estimate): a limit above the default 60 a minute; the 429 is the proxy's.
        createTestKey({ mode: 'test', tier: 'enterprise', rateLimit: 100_000 }),
        emptySpot(),
      ]);
      const { stdout } = await promisify(execFile)(
        python,
        [path.join(repoRoot, 'test/support/python_live.py')],
        {
          env: {
            ...process.env,
            PYTHONPATH: pythonPath,
            RLS_PROXY_URL: proxy.baseUrl,
            RLS_API_KEY: key,
            RLS_SPOT_LAT: String(spot.latitude),
            RLS_SPOT_LNG: String(spot.longitude),
          },
          timeout: 150_000,
        },
      );
      const seen = JSON.parse(stdout.trim().split('\n').at(-1)!);
      // The installed package, not the source folder.
      expect(seen.module.startsWith(pythonPath)).toBe(true);

      expect(proxy.bulk).toHaveLength(2);
      expect(proxy.bulk[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(proxy.bulk[1]!.idempotencyKey).toBe(proxy.bulk[0]!.idempotencyKey);
      expect(proxy.bulk[0]!.status).toBe(201);
      expect(seen.batch_id).toBe(JSON.parse(proxy.bulk[0]!.body).batch_id);
      expect(seen.batch_status).toBe('completed');
      const [stored] = await queryRows<{ n: string }>(
        testClickHouse(),
        'SELECT count() AS n FROM listings FINAL WHERE account_id = {account:String}',
        { account: accountId },
      );
      expect(Number(stored?.n)).toBe(6); // nothing created twice

      expect(seen.pricing).toBe(true);
      expect(seen.heatmap).toBe(true);
      expect(seen.velocity).toMatch(/^rls-velocity/);
      expect(['insufficient_history', 'provisional', 'ok']).toContain(seen.seasonality);
      expect(seen.market_share).toBeGreaterThanOrEqual(0);
      expect(seen.estimate_comparables).toBeGreaterThanOrEqual(5);
      expect(seen.listing_estimate_id).toBe(seen.listing_ids[0]);

      expect(seen.error).toMatchObject({ status: 400, code: 'invalid_parameter' });
      expect(seen.error.message).toMatch(/city/);
      expect(seen.error.request_id).toMatch(/\S+/);

      expect(seen.webhook_event).toBe('webhook.test');
      expect(seen.standardwebhooks_agrees).toBe(true);
      expect(seen.tampered_refused).toEqual([true, true]);
      expect(seen.signed_by_package_verified).toBe(true);
    },
  );
});
