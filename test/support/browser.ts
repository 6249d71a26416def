// Headless Chromium for the page tests: Debian's chromium (installed by npm test when missing),
// driven by playwright-core, and where the tests' screenshots go (<state dir>/artifacts/).
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { ensureChromium } from '../../infra/local/chromium.mjs';
import { repoRoot } from '../../infra/local/settings.mjs';

export const artifacts = process.env.RLS_TEST_ARTIFACTS_DIR ?? path.join(repoRoot, '.local', 'artifacts');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureChromium(),
    // As root in a sandbox-less container, and quiet: no background calls to the (closed) network.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** One browser for the tests of a file: launched before them, closed after them. */
export function browserForFile(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}
