// Dependency-free first step of `npm start` / `npm test`: install node_modules when missing or
// when package-lock.json changed since the last install, then load tsx so the rest of the tooling
// can be TypeScript shared with the services.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { inheritedEnvironment, repoRoot } from './settings.mjs';

export async function ensureDependencies() {
  // A content hash, not mtimes: a checkout or touch of the lock file must not trigger `npm ci`.
  const lockHash = createHash('sha256')
    .update(fs.readFileSync(path.join(repoRoot, 'package-lock.json')))
    .digest('hex');
  const marker = path.join(repoRoot, 'node_modules', '.rls-installed-lock');
  const installed = fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim() : '';
  if (installed !== lockHash) {
    process.stdout.write('[stack] npm: installing dependencies (npm ci)\n');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: repoRoot,
      stdio: 'inherit',
      // onnxruntime-node's postinstall would download GPU extras from outside the npm registry; the
      // CPU binaries the photo tagger uses are inside the package.
      env: { ...inheritedEnvironment(), ONNXRUNTIME_NODE_INSTALL: 'skip' },
    });
    fs.writeFileSync(marker, `${lockHash}\n`);
  }
  const { register } = await import('tsx/esm/api');
  register();
}
