// The dashboard in a real headless Chromium (Debian's, driven by playwright-core):
// with seeded listings and views it draws the heatmap's hexagons and the neighbourhood chart from
// the API, loads nothing from outside this origin, and shows the API's error for a bad key. The
// run saves a screenshot: <state dir>/artifacts/dashboard.png (docs/operations.md, "Pages").
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { api, batchCompleted, createTestKey, eventually, sampleListing } from '../support/api.ts';
import { artifacts, browserForFile } from '../support/browser.ts';

const browser = browserForFile();

/** Listings of one test account in Masaki and Mikocheni (Dar es Salaam), with views, stored. */
async function seed() {
  const { key } = await createTestKey({ mode: 'test' });
  const places = [
    [-6.747, 39.279],
    [-6.752, 39.284],
    [-6.765, 39.255],
    [-6.772, 39.248],
    [-6.8, 39.27],
  ];
  const listings = places.flatMap(([latitude, longitude], i) =>
    [0, 1].map((j) => sampleListing({ latitude, longitude, price: 900_000 + 150_000 * i + 20_000 * j })),
  );
  const created = await api('POST', '/api/v1/listings/bulk', { key, body: { listings } });
  expect(created.status).toBe(201);
  const ids = created.body.results.map((r: { listing_id: string }) => r.listing_id);
  await batchCompleted(key, created.body.batch_id);
  // Demand: more views on the first places.
  const events = ids.flatMap((id: string, i: number) =>
    Array.from({ length: 10 - i }, () => ({ listing_id: id })),
  );
  expect((await api('POST', '/api/v1/events/views', { key, body: { events } })).status).toBe(202);
  return key;
}

async function open(key: string): Promise<{ page: Page; requests: string[] }> {
  const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(`${inject('baseUrl')}/dashboard`);
  await page.waitForFunction(() => document.body.dataset.state === 'idle'); // locations loaded
  await page.fill('#key', key);
  await page.selectOption('#city', 'dar_es_salaam');
  await page.selectOption('#type', 'apartment');
  return { page, requests };
}

describe('dashboard in a browser', () => {
  it(
    'happy: draws hexagons coloured by demand and the neighbourhood chart for seeded data',
    { timeout: 180_000 },
    async () => {
      const key = await seed();
      const { page, requests } = await open(key);
      // The analytics cache (5 s in tests) may hold an answer from before the views: retry Show.
      await eventually(
        async () => {
          await page.click('#show');
          await page.waitForFunction(() => document.body.dataset.state !== 'loading');
          return (await page.locator('#map path.hex').count()) > 0 ? true : undefined;
        },
        60_000,
        'hexagons on the map',
      );
      expect(await page.getAttribute('body', 'data-state')).toBe('ready');
      expect(await page.locator('#chart rect.bar').count()).toBeGreaterThan(0);
      expect(await page.locator('#map circle.hood').count()).toBeGreaterThan(2);
      await expect.poll(() => page.textContent('#summary')).toContain('Median rent');
      const fills = await page
        .locator('#map path.hex')
        .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('fill')));
      expect(new Set(fills).size).toBeGreaterThan(1); // coloured by demand, not one colour
      // Everything the page loaded came from this origin: no CDN, no tiles.
      for (const url of requests) expect(url.startsWith(inject('baseUrl'))).toBe(true);
      fs.mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: path.join(artifacts, 'dashboard.png'), fullPage: true });
      await page.close();
    },
  );

  it('error: shows the API error for a bad key', async () => {
    const { page } = await open('svc_test_thisKeyDoesNotExist0000000000000000');
    await page.click('#show');
    await page.waitForFunction(() => document.body.dataset.state === 'error');
    const status = page.locator('#status');
    expect(await status.getAttribute('role')).toBe('alert');
    expect(await status.textContent()).toMatch(/API key.*\(401 (invalid_api_key|missing_api_key)\)/);
    expect(await page.locator('#map path.hex').count()).toBe(0);
    await page.screenshot({ path: path.join(artifacts, 'dashboard-error.png') });
    await page.close();
  });
});
