// `npm run build`: the services compiled to dist/ by tsc (tsconfig.build.json), with the files they
// read at run time beside them (the ClickHouse migrations, the web pages), so dist/ plus the
// production node_modules is all a deployment needs. Incremental: with nothing changed it takes a
// few seconds, so `npm start` and `npm test` run it every time. Dependency-free (runs under the
// bootstrap Node before anything else is loaded).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const distDir = path.join(repoRoot, 'dist');
const assets = ['infra/clickhouse/migrations', 'web'];

/**
 * Compiles and copies. A type error fails the build unless `allowTypeErrors` (quick test runs of
 * a work tree with unfinished changes elsewhere: tsc still emits, and the full `npm test` checks types).
 */
export async function build({
  allowTypeErrors = false,
  log = (line) => process.stdout.write(`${line}\n`),
} = {}) {
  const started = Date.now();
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const status = await new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
  if (status !== 0 && !allowTypeErrors) throw new Error('build failed: tsc reported errors (above)');
  for (const asset of assets) {
    const from = path.join(repoRoot, asset);
    const to = path.join(distDir, asset);
    fs.rmSync(to, { recursive: true, force: true });
    if (fs.existsSync(from)) fs.cpSync(from, to, { recursive: true });
  }
  log(
    `[build] dist/ ready in ${((Date.now() - started) / 1000).toFixed(1)} s` +
      (status !== 0 ? ' (with type errors)' : ''),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await build();
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
