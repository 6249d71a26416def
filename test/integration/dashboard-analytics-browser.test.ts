// The dashboard's analytic pages (#velocity, #seasonality, #market-share, #estimate) in headless
// Chromium, driven as a person would: type the key, press the page's Show button with the controls
// as they stand (their defaults), read what is drawn. Fixture data: dashboard-analytics-fixtures.ts.
// Each page: figures drawn in SVG with a table, no console error, nothing requested from outside
// the service, 0 serious or critical axe-core violations; a key without the analytics tier gets
// the API's refusal shown. Screenshots: <artifacts>/dashboard-<page>.png; axe: axe-<page>.json.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestKey } from '../support/api.ts';
import { artifacts, launchBrowser } from '../support/browser.ts';
import { seedAnalyticPages, type Seeded } from '../support/dashboard-analytics-fixtures.ts';
import { emptySpot } from '../support/estimate-fixtures.ts';

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let browser: Browser;
let seeded: Seeded;
let key: string;

beforeAll(async () => {
  [browser, seeded] = await Promise.all([launchBrowser(), seedAnalyticPages()]);
  key = seeded.key;
  fs.mkdirSync(artifacts, { recursive: true });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await seeded?.cleanUp();
});

interface Opened {
  page: Page;
  requests: string[];
  consoleErrors: string[];
  /** The JSON bodies of the API's answers the page received, by path (the last one per path). */
  answers: Map<string, any>;
}

async function open(name: string, withKey: string): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  const answers = new Map<string, any>();
  page.on('request', (request) => requests.push(request.url()));
  page.on('response', async (response) => {
    const url = new URL(response.url());
    if (!url.pathname.startsWith('/api/v1/analytics/') || response.status() !== 200) return;
    if ((response.headers()['content-type'] ?? '').includes('json'))
      answers.set(url.pathname, await response.json());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await page.goto(`${inject('baseUrl')}/dashboard#${name}`);
  await page.waitForFunction(() => document.body.dataset.state === 'idle');
  await page.fill('#key', withKey);
  return { page, requests, consoleErrors, answers };
}

async function show(page: Page, name: string): Promise<string | undefined> {
  await page.click(`#page-${name} button[data-action="show"]`);
  await page.waitForFunction(() => !['loading', 'idle'].includes(document.body.dataset.state ?? ''));
  return page.evaluate(() => document.body.dataset.state);
}

/**
 * axe-core's violations of impact serious or critical on the page as it stands; the whole result's
 * summary (rules passed, violations by impact) goes to <artifacts>/axe-<name>.json.
 */
async function seriousViolations(page: Page, name: string): Promise<string[]> {
  await page.evaluate(axeSource); // evaluated by the test driver: the page's CSP does not apply
  const summary = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: () => Promise<any> } }).axe.run();
    return {
      passes: result.passes.length,
      incomplete: result.incomplete.length,
      violations: result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })),
    };
  });
  fs.writeFileSync(path.join(artifacts, `axe-${name}.json`), `${JSON.stringify(summary, null, 2)}\n`);
  return summary.violations
    .filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: { id: string; impact: string; nodes: number }) => `${v.id} (${v.impact}, ${v.nodes} nodes)`);
}

async function finish({ page, requests, consoleErrors }: Opened, name: string): Promise<void> {
  expect(consoleErrors).toEqual([]);
  for (const url of requests) expect(url.startsWith(inject('baseUrl'))).toBe(true);
  expect(await seriousViolations(page, name)).toEqual([]);
  await page.screenshot({ path: path.join(artifacts, `dashboard-${name}.png`), fullPage: true });
  await page.close();
}

const cellsOf = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll((rows) => rows.map((r) => (r.textContent ?? '').trim()));

describe('dashboard analytic pages in a browser', () => {
  it('velocity: days to rent by neighbourhood with the city and Kaplan–Meier medians, exits, stock', async () => {
    const opened = await open('velocity', key);
    const { page } = opened;
    expect(await show(page, 'velocity')).toBe('ready');
    // The charts draw exactly what the API answered the page: a bar per neighbourhood with a median,
    // a mark per city median, a stacked part per area drawn whole and part above zero.
    const answer = opened.answers.get('/api/v1/analytics/velocity');
    const areas: any[] = answer.by_neighborhood;
    const withMedian = areas.filter((area) => area.median_days_to_rent !== null);
    expect(withMedian.map((area) => area.name)).toContain('Masaki');
    expect(await page.locator('#velocity-days svg rect.bar').count()).toBe(withMedian.length);
    const marks = [answer.summary.median_days_to_rent, answer.summary.km_median_days_to_rent];
    expect(marks[0]).not.toBeNull();
    expect(await page.locator('#velocity-days svg line.mark').count()).toBe(
      marks.filter((m) => m !== null).length,
    );
    const masaki = await cellsOf(page, '#velocity-days tbody tr');
    expect(masaki.find((text) => text.startsWith('Masaki'))).toMatch(/^Masaki\d+/);
    // Exits by reason: the whole city and each area drawn whole get a part per reason above zero.
    const exitRows = [answer.summary, ...areas].filter((row) =>
      ['rented', 'withdrawn', 'expired'].every((part) => row[part] !== null),
    );
    const partsAbove = (part: string) => exitRows.filter((row) => row[part] > 0).length;
    expect(partsAbove('rented')).toBeGreaterThan(0);
    expect(partsAbove('withdrawn')).toBeGreaterThan(0);
    expect(await page.locator('#velocity-exits svg rect.bar.c1').count()).toBe(partsAbove('rented'));
    expect(await page.locator('#velocity-exits svg rect.bar.c2').count()).toBe(partsAbove('withdrawn'));
    expect(await page.locator('#velocity-stock table tbody tr').count()).toBe(areas.length + 1);
    expect(await page.textContent('#velocity-summary')).toContain('Kaplan–Meier median');
    await finish(opened, 'velocity');
  });

  it('seasonality: the month-of-year index as a line with its status written on the chart', async () => {
    const opened = await open('seasonality', key);
    const { page } = opened;
    expect(await show(page, 'seasonality')).toBe('ready');
    const note = await page.textContent('#seasonality-index svg text.chart-note');
    expect(note).toMatch(/^Status: (provisional|ok) /); // 14 months of fixture history at least
    expect(await page.locator('#seasonality-index svg path.line.c1').count()).toBe(1);
    expect(await page.locator('#seasonality-index tbody tr').count()).toBe(12);
    expect(await page.locator('#seasonality-series svg path.line').count()).toBe(1);
    await finish(opened, 'seasonality');
  });

  it('market share: own against the anonymous rest, a suppressed neighbourhood shown as suppressed', async () => {
    const opened = await open('market-share', key);
    const { page } = opened;
    expect(await show(page, 'market-share')).toBe('ready');
    const rows = await cellsOf(page, '#market-share-chart tbody tr');
    // Which areas the complementary rule withholds beside the lonely one (another area, or the
    // whole city) depends on every account's data in this market, which other files seed too. So:
    // each row is shown or withheld with the reason, the lonely one withheld, and the chart draws
    // exactly that: a note per withheld row, bars for every shown one.
    const withheldText = /suppressed: fewer than 5 other accounts, or one holds over 25 % of the rest$/;
    const shown = rows.filter((text) => /shown$/.test(text));
    const withheld = rows.filter((text) => withheldText.test(text));
    expect(shown.length + withheld.length).toBe(rows.length);
    const lonely = rows.find((text) => text.startsWith(seeded.lonely));
    expect(lonely).toBe(
      `${seeded.lonely}2suppressedsuppressedsuppressed: fewer than 5 other accounts, or one holds over 25 % of the rest`,
    );
    expect(await page.locator('#market-share-chart svg text.withheld').count()).toBe(withheld.length);
    expect(await page.locator('#market-share-chart svg rect.bar').count()).toBeGreaterThanOrEqual(
      shown.length,
    );
    await finish(opened, 'market-share');
  });

  it('estimate: the pre-filled example answers an estimate, its interval and comparables by distance on the map', async () => {
    const opened = await open('estimate', key);
    const { page } = opened;
    expect(await show(page, 'estimate')).toBe('ready');
    // Off-the-market comparables are counted, not listed: a row and a dot per listed comparable.
    const listed = opened.answers.get('/api/v1/analytics/estimate').comparables.length;
    expect(listed).toBeGreaterThan(0);
    expect(await page.locator('#estimate-comparables tbody tr').count()).toBe(listed);
    expect(await page.locator('#estimate-map svg circle.comparable').count()).toBe(listed);
    expect(await page.locator('#estimate-map svg path.subject').count()).toBe(1);
    expect(await page.locator('#estimate-interval svg rect.interval').count()).toBe(1);
    expect(await page.textContent('#estimate-summary')).toMatch(/Estimated asking rent\s*$|TZS/);
    await finish(opened, 'estimate');
  });

  it('market: the default page answers its Show button (data-action) the same way', async () => {
    const opened = await open('market', key);
    const { page } = opened;
    expect(await show(page, 'market')).toBe('ready');
    const neighbourhoods = opened.answers.get('/api/v1/analytics/pricing').by_neighborhood.length;
    expect(neighbourhoods).toBeGreaterThan(0);
    expect(await page.locator('#chart rect.bar').count()).toBe(neighbourhoods);
    await finish(opened, 'market');
  });

  it('empty: a city and type with no listings says so instead of drawing empty charts', async () => {
    for (const name of ['velocity', 'seasonality', 'market-share']) {
      const { page, consoleErrors } = await open(name, key);
      // Nothing in this suite lists test-mode land in Iringa.
      await page.selectOption(`#${name}-city`, 'iringa');
      await page.selectOption(`#${name}-type`, 'land');
      expect(await show(page, name)).toBe('ready');
      expect(await page.getAttribute(`#${name}-status`, 'class')).toBe('status empty');
      expect(await page.textContent(`#${name}-status`)).toMatch(/^No land listings/);
      expect(await page.locator(`#${name}-output`).isHidden()).toBe(true);
      expect(consoleErrors).toEqual([]);
      await page.close();
    }
    // The estimate far from any listing: too few comparables (the API's 422) is no data, not an error.
    const { page } = await open('estimate', key);
    const spot = await emptySpot();
    await page.fill('#estimate-lat', String(spot.latitude));
    await page.fill('#estimate-lng', String(spot.longitude));
    expect(await show(page, 'estimate')).toBe('ready');
    expect(await page.getAttribute('#estimate-status', 'class')).toBe('status empty');
    expect(await page.textContent('#estimate-status')).toMatch(
      /^No estimate here: .*\(422 insufficient_comparables\)$/,
    );
    expect(await page.locator('#estimate-output').isHidden()).toBe(true);
    await page.close();
  });

  it('error: a key without the analytics tier sees the API refusal on every page', async () => {
    const { key: proKey } = await createTestKey({ mode: 'test', tier: 'pro' });
    for (const name of ['velocity', 'seasonality', 'market-share', 'estimate']) {
      const { page, consoleErrors } = await open(name, proKey);
      expect(await show(page, name)).toBe('error');
      const status = page.locator(`#${name}-status`);
      expect(await status.getAttribute('role')).toBe('alert');
      expect(await status.textContent()).toMatch(/\(403 \w+\)/);
      expect(await page.locator(`#${name}-output`).isHidden()).toBe(true);
      // The browser reports the refused fetch itself; nothing else may fail.
      expect(consoleErrors.filter((text) => !/status of 403/.test(text))).toEqual([]);
      if (name === 'velocity')
        await page.screenshot({ path: path.join(artifacts, 'dashboard-velocity-error.png') });
      await page.close();
    }
  });
});
