// The dashboard's Keys page (/dashboard#keys) in headless Chromium, like
// dashboard-browser.test.ts: an admin key typed in the page lists its account's keys, creates a key
// that is shown once (warning, Copy button) and that the test then uses against the API, rolls and
// revokes keys with the API seeing both, and shows the account's recent key changes. A key without
// the admin role gets a clear message. Screenshot: <state dir>/artifacts/keys.png.
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { api, createTestKey, eventually, type TestKey } from '../support/api.ts';
import { artifacts, browserForFile } from '../support/browser.ts';

const browser = browserForFile();

interface Opened {
  page: Page;
  context: BrowserContext;
  requests: string[];
}

/** /dashboard#keys with `key` typed and Load keys pressed, settled. */
async function openKeys(key: string): Promise<Opened> {
  const context = await browser().newContext({ viewport: { width: 1280, height: 1000 } });
  // So that Copy can write the clipboard and the test can read back what it wrote.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: inject('baseUrl') });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(`${inject('baseUrl')}/dashboard#keys`);
  await page.waitForFunction(() => document.body.dataset.state === 'idle'); // init done
  expect(await page.isVisible('#page-keys')).toBe(true);
  expect(await page.isVisible('#page-market')).toBe(false);
  await page.fill('#key', key);
  await page.click('#keys-load');
  await settled(page);
  return { page, context, requests };
}

/** Waits until the Keys page is not loading; returns its state. */
async function settled(page: Page): Promise<string> {
  await page.waitForFunction(() => document.getElementById('page-keys')!.dataset.state !== 'loading');
  return (await page.getAttribute('#page-keys', 'data-state')) ?? '';
}

/** Clicks a row's Roll or Revoke, accepting the confirmation the page asks for. */
async function act(page: Page, keyId: string, action: 'roll' | 'revoke'): Promise<void> {
  page.once('dialog', (dialog) => void dialog.accept());
  await page.click(`#keys-rows tr[data-key-id="${keyId}"] [data-act="${action}"]`);
  expect(await settled(page)).toBe('ready');
}

async function accountKeys(admin: TestKey) {
  const listed = await api('GET', '/api/v1/keys', { key: admin.key });
  expect(listed.status).toBe(200);
  return listed.body.keys as Record<string, any>[];
}

/** The page's audit rows, refreshed until `selector` is among them. */
function auditShows(page: Page, selector: string) {
  return eventually(
    async () => {
      await page.click('#audit-refresh');
      await page.waitForFunction(
        () => !document.getElementById('audit-status')!.className.includes('loading'),
      );
      return (await page.locator(`#audit-rows ${selector}`).count()) > 0 ? true : undefined;
    },
    30_000,
    `audit row ${selector}`,
  );
}

describe('Keys page in a browser', () => {
  it(
    'happy: lists keys, creates a key shown once and usable, rolls and revokes keys the API then refuses, shows the changes',
    { timeout: 180_000 },
    async () => {
      const boss = await createTestKey({ role: 'admin', tier: 'business' });
      const existing = await createTestKey({ accountId: boss.account_id, name: 'old uploader' });
      const { page, context, requests } = await openKeys(boss.key);

      // The list: both keys of the account, never a plaintext.
      expect(await page.getAttribute('#page-keys', 'data-state')).toBe('ready');
      expect(await page.locator('#keys-rows tr').count()).toBe(2);
      expect(await page.textContent(`#keys-rows tr[data-key-id="${existing.id}"]`)).toContain('old uploader');
      expect(await page.textContent('#keys-status')).toContain('2 keys');
      const html = () => page.evaluate(() => document.documentElement.outerHTML);
      expect(await html()).not.toContain(boss.key);

      // Create, with a name that would be markup if inserted as HTML.
      const name = '<img src=x onerror="window.__injected=1">CI uploader';
      await page.fill('#new-name', name);
      await page.selectOption('#new-tier', 'pro');
      await page.click('#key-create-submit');
      expect(await settled(page)).toBe('ready');
      expect(await page.isVisible('#one-time')).toBe(true);
      expect(await page.textContent('#one-time-warning')).toMatch(/shown only this once/);
      expect(await page.isVisible('#one-time-copy')).toBe(true);
      const plaintext = (await page.textContent('#one-time-key'))!;
      expect(plaintext).toMatch(/^svc_live_[0-9A-Za-z]{38}$/);

      // Copy puts exactly the key on the clipboard.
      await page.click('#one-time-copy');
      await page.waitForSelector('#one-time-copy[data-copied="true"]');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(plaintext);

      // Shown in the one-time box only: once in the document, in no storage.
      expect((await html()).split(plaintext)).toHaveLength(2);
      const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
      expect(stored).not.toContain(plaintext);

      // The name went in as text, not markup.
      const created = (await accountKeys(boss)).find((k) => k.name === name)!;
      expect(created).toMatchObject({ tier: 'pro', role: 'standard', mode: 'live', status: 'active' });
      expect(await page.textContent(`#keys-rows tr[data-key-id="${created.id}"]`)).toContain(name);
      expect(await page.locator('#keys-rows img').count()).toBe(0);
      expect(await page.evaluate(() => (window as any).__injected)).toBeUndefined();

      // The key read from the page works against the API, with the tier chosen on the page.
      expect((await api('GET', '/api/v1/listings/bulk', { key: plaintext })).status).toBe(200);
      const analytics = await api('GET', '/api/v1/analytics/pricing?city=dar_es_salaam&type=apartment', {
        key: plaintext,
      });
      expect(analytics.status).toBe(403);
      expect(analytics.body.error.code).toBe('insufficient_tier');

      // Leaving the Keys page forgets the plaintext; coming back does not bring it back.
      await page.click('[data-tab="market"]');
      await page.waitForSelector('#page-market', { state: 'visible' });
      expect(await page.textContent('#one-time-key')).toBe('');
      expect(await html()).not.toContain(plaintext);
      await page.click('[data-tab="keys"]');
      expect(await page.isVisible('#one-time')).toBe(false);

      // Roll it with a one-hour grace period: a new key in the box, the old one still works.
      await page.fill('#roll-hours', '1');
      await act(page, created.id, 'roll');
      const rolledKey = (await page.textContent('#one-time-key'))!;
      expect(rolledKey).toMatch(/^svc_live_/);
      expect(rolledKey).not.toBe(plaintext);
      expect(await page.textContent('#one-time-about')).toMatch(/replacing .* works until/);
      const afterRoll = await accountKeys(boss);
      const old = afterRoll.find((k) => k.id === created.id)!;
      const replacement = afterRoll.find((k) => k.id === old.replaced_by)!;
      expect(replacement).toMatchObject({ name, tier: 'pro', status: 'active' });
      const grace = Date.parse(old.expires_at) - Date.now();
      expect(grace).toBeGreaterThan(55 * 60_000);
      expect(grace).toBeLessThanOrEqual(60 * 60_000);
      expect((await api('GET', '/api/v1/listings/bulk', { key: rolledKey })).status).toBe(200);
      expect((await api('GET', '/api/v1/listings/bulk', { key: plaintext })).status).toBe(200);
      // A rolled key is rolled once: the page offers no Roll on it any more.
      expect(await page.locator(`#keys-rows tr[data-key-id="${created.id}"] [data-act="roll"]`).count()).toBe(
        0,
      );

      // The account's changes, as the page shows them.
      await auditShows(page, `tr[data-action="roll"][data-key-id="${created.id}"]`);
      expect(
        await page.locator(`#audit-rows tr[data-action="create"][data-key-id="${created.id}"]`).count(),
      ).toBe(1);
      expect(await page.locator('#audit-rows img').count()).toBe(0);
      fs.mkdirSync(artifacts, { recursive: true });
      // The key in the box is revoked right below: the screenshot holds no working key.
      await page.screenshot({ path: path.join(artifacts, 'keys.png'), fullPage: true });

      // Revoke the replacement from the page: the box empties and the API refuses the key at once.
      await act(page, replacement.id, 'revoke');
      expect(await page.isVisible('#one-time')).toBe(false);
      expect(await page.textContent('#one-time-key')).toBe('');
      expect(await page.getAttribute(`#keys-rows tr[data-key-id="${replacement.id}"]`, 'data-status')).toBe(
        'revoked',
      );
      const refused = await api('GET', '/api/v1/listings/bulk', { key: rolledKey });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('revoked_api_key');
      // Revoking the rolled key ends its grace period at once.
      await act(page, created.id, 'revoke');
      expect((await api('GET', '/api/v1/listings/bulk', { key: plaintext })).status).toBe(403);
      await auditShows(page, `tr[data-action="revoke"][data-key-id="${created.id}"]`);
      expect(
        await page.locator(`#audit-rows tr[data-action="revoke"][data-key-id="${replacement.id}"]`).count(),
      ).toBe(1);
      expect(await page.textContent('#audit-rows')).toContain(boss.id); // by whom

      // Everything the page loaded came from this origin.
      for (const url of requests) expect(url.startsWith(inject('baseUrl'))).toBe(true);
      await context.close();
    },
  );

  it('error: a key without the admin role is told it needs one (the API answers 403)', async () => {
    const standard = await createTestKey({ tier: 'business' });
    const { page, context } = await openKeys(standard.key);
    expect(await page.getAttribute('#page-keys', 'data-state')).toBe('error');
    const status = page.locator('#keys-status');
    expect(await status.getAttribute('role')).toBe('alert');
    expect(await status.textContent()).toMatch(
      /only a key with the admin role can .*\(403 insufficient_role\)/,
    );
    expect(await page.isVisible('#keys-admin')).toBe(false);
    expect(await page.locator('#keys-rows tr').count()).toBe(0);
    await context.close();
  });
});
