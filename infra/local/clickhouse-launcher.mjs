// The C launcher that runs clickhouse-local (libchdb.so from the npm package) as a server: compiled
// with gcc on first use and cached under the cache directory, keyed by its source and the library.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { aptInstall, commandExists, log, runCommand } from './processes.mjs';
import { repoRoot } from './settings.mjs';

const COMPONENT = 'clickhouse';
const LIBRARY_PACKAGE = '@chdb/lib-linux-x64-gnu';
const SOURCE_DIR = path.join(repoRoot, 'infra/local/clickhouse');
const LAUNCHER_SOURCES = ['launcher.c', 'native-front.c', 'native-packets.c', 'front-limits.c'].map((file) =>
  path.join(SOURCE_DIR, file),
);
const LAUNCHER_HEADERS = ['native-front.h', 'native-packets.h', 'front-limits.h'].map((file) =>
  path.join(SOURCE_DIR, file),
);

/** The directory of libchdb.so in node_modules (installed by `npm ci`). */
function libraryDir() {
  const require = createRequire(path.join(repoRoot, 'package.json'));
  let manifest;
  try {
    manifest = require.resolve(`${LIBRARY_PACKAGE}/package.json`);
  } catch {
    throw new Error(`ClickHouse: ${LIBRARY_PACKAGE} is not installed; run npm ci`);
  }
  const dir = path.dirname(manifest);
  if (!fs.existsSync(path.join(dir, 'libchdb.so')))
    throw new Error(`ClickHouse: ${dir}/libchdb.so is missing; reinstall with npm ci`);
  return dir;
}

/** Compiles launcher.c once per (source, library) into the cache directory. */
export async function launcherBinary(settings) {
  const lib = libraryDir();
  const version = JSON.parse(fs.readFileSync(path.join(lib, 'package.json'), 'utf8')).version;
  const hash = createHash('sha256');
  for (const file of [...LAUNCHER_SOURCES, ...LAUNCHER_HEADERS]) hash.update(fs.readFileSync(file));
  const key = hash.update(lib).update(version).digest('hex').slice(0, 16);
  const binary = path.join(settings.cacheDir, 'clickhouse', `launcher-${key}`);
  if (fs.existsSync(binary)) return binary;
  if (!commandExists('gcc')) aptInstall(COMPONENT, ['gcc', 'libc6-dev']);
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  const partial = `${binary}.${process.pid}.tmp`; // parallel stacks may compile at once
  await runCommand(
    'gcc',
    [
      '-O2',
      '-Wall',
      '-o',
      partial,
      ...LAUNCHER_SOURCES,
      `-L${lib}`,
      '-lchdb',
      `-Wl,-rpath,${lib}`,
      '-lpthread',
    ],
    { inheritStderr: true },
  );
  fs.renameSync(partial, binary);
  log(COMPONENT, `built launcher ${binary} against ${LIBRARY_PACKAGE}@${version}`);
  return binary;
}
