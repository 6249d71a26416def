// Dependency-free first step of `npm start` / `npm test`: install node_modules when missing or
// stale, then load tsx so the rest of the tooling can be TypeScript shared with the services.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './settings.mjs';

export async function ensureDependencies() {
  const installed = path.join(repoRoot, 'node_modules', '.package-lock.json');
  const lock = path.join(repoRoot, 'package-lock.json');
  const stale = !fs.existsSync(installed) || fs.statSync(lock).mtimeMs > fs.statSync(installed).mtimeMs;
  if (stale) {
    process.stdout.write('[stack] npm: installing dependencies (npm ci)\n');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: repoRoot, stdio: 'inherit' });
  }
  const { register } = await import('tsx/esm/api');
  register();
}
