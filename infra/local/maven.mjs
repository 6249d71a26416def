// The stack's Java components (Kafka, ZooKeeper) run from jars on Maven Central, resolved once by a
// pom of our own into a libs folder under the cache directory, since no distribution tarball can be
// downloaded here. A marker in that folder holds the pom's hash (after whatever else picks the
// jars, such as a version), so editing the pom re-resolves; otherwise re-runs are instant.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { aptInstall, commandExists, log, runCommand } from './processes.mjs';

/**
 * Copies the runtime dependencies of `pom` into `libs` unless the marker says they are there;
 * installs Java and Maven when missing. `what` names the jars in messages, `selector` is what
 * besides the pom picks them, `mavenArgs` are the extra flags that pick them, `hint` follows the
 * failure message. Returns how long the download took (0 when cached).
 */
export async function ensureMavenJars({
  component,
  what,
  pom,
  libs,
  cacheDir,
  selector = '',
  mavenArgs = [],
  hint = '',
}) {
  if (!commandExists('java')) aptInstall(component, ['openjdk-17-jre-headless']);
  const ready = path.join(libs, '.complete');
  const stamp = `${selector}${createHash('sha256').update(fs.readFileSync(pom)).digest('hex')}`;
  if (fs.existsSync(ready) && fs.readFileSync(ready, 'utf8').trim() === stamp) return 0;
  if (!commandExists('mvn')) aptInstall(component, ['maven']);
  log(component, `downloading ${what} jars from Maven Central`);
  const t0 = Date.now();
  fs.rmSync(libs, { recursive: true, force: true }); // no stale jars from an earlier pom
  const args = [
    '-q',
    '-B',
    '-f',
    pom,
    'dependency:copy-dependencies',
    // runtime, not compile: runtime-scoped modules would be dropped otherwise.
    '-DincludeScope=runtime',
    `-DoutputDirectory=${libs}`,
    `-Dmaven.repo.local=${path.join(cacheDir, 'm2')}`,
    ...mavenArgs,
  ];
  try {
    // Output captured: with -q it is only stray ANSI codes, unless it fails.
    await runCommand('mvn', args);
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    const errors = output
      .split('\n')
      .filter((line) => line.includes('[ERROR] Failed'))
      .slice(0, 1)
      .join('\n');
    throw new Error(
      `${component}: Maven could not download ${what} jars${hint}:\n` +
        `${errors || output.slice(-2000)}\nCommand: mvn ${args.join(' ')}`,
    );
  }
  fs.writeFileSync(ready, `${stamp}\n`);
  const ms = Date.now() - t0;
  log(component, `jars ready in ${(ms / 1000).toFixed(1)} s`);
  return ms;
}
