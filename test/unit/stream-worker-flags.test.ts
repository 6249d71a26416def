// Every way the stream worker is started caps V8's young generation (docs/performance.md, "Memory
// of the stream worker"): without the flag it grows to 128 MB and the worker passes 400 MB
// resident under bench:stream.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serviceFlags } from '../../infra/local/services.mjs';

const FLAG = '--max-semi-space-size=8';
const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('stream worker launchers', () => {
  it('pass the young-generation cap to node', () => {
    expect(serviceFlags.stream).toContain(FLAG);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['start:stream']).toContain(FLAG);
    const compose = read('infra/deploy/compose.yaml');
    expect(compose.split('\n').find((line) => line.includes('dist/stream/main.js'))).toContain(`'${FLAG}'`);
    expect(read('infra/deploy/systemd/rls-stream@.service')).toMatch(
      new RegExp(`ExecStart=.*${FLAG}.*dist/stream/main\\.js`),
    );
  });
});
