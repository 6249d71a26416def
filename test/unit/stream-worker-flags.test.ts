// Every way the stream worker is started passes the same V8 heap flags (docs/performance.md, "Memory
// of the stream worker"): without the young-generation cap the worker passes 400 MB resident under
// bench:stream; without the old-generation growth cap it lets ~120 MB of dead batch objects pile up
// between full collections and peaks above 300 MB.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serviceFlags, serviceNode } from '../../infra/local/services.mjs';

const FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=150'];
const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('stream worker launchers', () => {
  it.each(FLAGS)('pass %s to node', (flag) => {
    expect(serviceFlags.stream).toContain(flag);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['start:stream']).toMatch(new RegExp(`^node .*${flag}.*dist/stream/main\\.js$`));
    // The stream service's command, from its `command:` to the entry point (one item per line).
    const compose = /\n {2}stream:\n[\s\S]*?command:[\s\S]*?dist\/stream\/main\.js/.exec(
      read('infra/deploy/compose.yaml'),
    );
    expect(compose?.[0].split('\n').map((line) => line.trim())).toContain(`- ${flag}`);
    expect(read('infra/deploy/systemd/rls-stream@.service')).toMatch(
      new RegExp(`ExecStart=.*${flag}.*dist/stream/main\\.js`),
    );
  });

  it('use flags the pinned Node accepts (it refuses an unknown one at start)', () => {
    const run = spawnSync(serviceNode, [...serviceFlags.stream, '-e', ''], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
