// Debian's Chromium for the dashboard's browser test (test/integration/dashboard-browser.test.ts,
// driven by the npm package playwright-core, which downloads no browser of its own). Installed
// with apt-get when missing, like Redis; fonts so the screenshot shows text. Dependency-free.
import fs from 'node:fs';
import { aptInstall } from './processes.mjs';

export const CHROMIUM = '/usr/bin/chromium';

/** The browser's path, installing Debian's chromium first when it is not there. */
export function ensureChromium() {
  if (!fs.existsSync(CHROMIUM)) aptInstall('chromium', ['chromium', 'fonts-dejavu-core']);
  return CHROMIUM;
}
