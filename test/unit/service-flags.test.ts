// Every way a worker process is started passes the same V8 heap flags (docs/performance.md):
// - the stream worker ("Memory of the stream worker"): without the young-generation cap it passes
//   400 MB resident under bench:stream; without the old-generation growth cap it lets ~120 MB of
//   dead batch objects pile up between full collections and peaks above 300 MB;
// - the image process ("The image process's garbage collection"): with incremental marking it ran
//   a full collection every ~0.5 s while skipping listings without images, half of its CPU.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serviceFlags, serviceNode } from '../../infra/local/services.mjs';

const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

const launchers = [
  {
    service: 'stream' as const,
    flags: ['--max-semi-space-size=8', '--heap-growing-percent=75'],
    script: 'start:stream',
    entry: 'dist/stream/main.js',
    unit: 'infra/deploy/systemd/rls-stream@.service',
  },
  {
    service: 'images' as const,
    flags: ['--no-incremental-marking'],
    script: 'start:images',
    entry: 'dist/stream/images/main.js',
    unit: 'infra/deploy/systemd/rls-images@.service',
  },
];

describe.each(launchers)('$service launchers', ({ service, flags, script, entry, unit }) => {
  const entryPattern = entry.replaceAll('.', '\\.');

  it.each(flags)('pass %s to node', (flag) => {
    expect(serviceFlags[service]).toContain(flag);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts[script]).toMatch(new RegExp(`^node .*${flag}.*${entryPattern}$`));
    // The compose service's command, from its `command:` to the entry point (one item per line).
    const compose = new RegExp(`\\n {2}${service}:\\n[\\s\\S]*?command:[\\s\\S]*?${entryPattern}`).exec(
      read('infra/deploy/compose.yaml'),
    );
    expect(compose?.[0].split('\n').map((line) => line.trim())).toContain(`- ${flag}`);
    expect(read(unit)).toMatch(new RegExp(`ExecStart=.*${flag}.*${entryPattern}`));
  });

  it('use flags the pinned Node accepts (it refuses an unknown one at start)', () => {
    const run = spawnSync(serviceNode, [...serviceFlags[service], '-e', ''], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
