// Debian's `prometheus` package for promtool, which checks and unit-tests the alert rules
// (infra/deploy/prometheus/; test/unit/alert-rules.test.ts). Installed with apt-get when missing,
// like Redis and Chromium. Dependency-free.
import fs from 'node:fs';
import { aptInstall } from './processes.mjs';

export const PROMTOOL = '/usr/bin/promtool';

/** promtool's path, installing Debian's prometheus first when it is not there. */
export function ensurePromtool() {
  if (!fs.existsSync(PROMTOOL)) aptInstall('prometheus', ['prometheus']);
  return PROMTOOL;
}
