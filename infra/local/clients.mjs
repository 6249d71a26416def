// The two client packages installed the way their users install them, for the clients' live test
// (test/integration/clients-*.test.ts): the Python one with pip from clients/python into a
// directory of this run (the interpreter: a cached virtualenv with httpx and standardwebhooks,
// clients/python/requirements-test.txt), the TypeScript one with `npm install <path>` into an
// app directory of this run (its prepare script builds it; no download). Dependency-free.
import fs from 'node:fs';
import path from 'node:path';
import { runStep } from './processes.mjs';
import { repoRoot } from './settings.mjs';
import { ensureVenv } from './venv.mjs';

export async function installClients(settings) {
  const root = path.join(settings.stateDir, 'clients');
  const python = await ensureVenv(
    settings,
    'python-client',
    path.join(repoRoot, 'clients/python/requirements-test.txt'),
  );
  // pip builds the package from its pyproject (setuptools from the venv: nothing downloaded), from
  // a copy: an in-tree build writes build/ and *.egg-info beside the sources.
  const pythonPath = path.join(root, 'python-site');
  const pythonSource = path.join(root, 'python-src');
  for (const dir of [pythonPath, pythonSource]) fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(path.join(repoRoot, 'clients/python'), pythonSource, {
    recursive: true,
    filter: (source) => !/(__pycache__|\.egg-info|[/\\]build)$/.test(source),
  });
  await runStep(python, [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '--no-deps',
    '--no-build-isolation',
    '--target',
    pythonPath,
    pythonSource,
  ]);
  const app = path.join(root, 'ts-app');
  fs.rmSync(app, { recursive: true, force: true });
  fs.mkdirSync(app, { recursive: true });
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'rls-client-user', version: '1.0.0', private: true, type: 'module' }),
  );
  await runStep(
    'npm',
    ['install', '--no-audit', '--no-fund', '--offline', path.join(repoRoot, 'clients/typescript')],
    {
      cwd: app,
    },
  );
  return { python, pythonPath, typescriptEntry: path.join(app, 'node_modules/rls-client/dist/index.js') };
}
