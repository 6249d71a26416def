// A fault nothing in the process recovers from (a consumer kafkajs gave up) stops the process
// cleanly with exit code 1, so that its supervisor starts a fresh one.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceNode } from '../../infra/local/services.mjs';

describe('process lifecycle', () => {
  it('error: fatal() stops the process after its clean stop, with exit code 1 and the reason logged', () => {
    const fixture = path.join(import.meta.dirname, '..', 'support', 'fatal-process.ts');
    const run = spawnSync(serviceNode, [fixture], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH },
    });
    expect(run.status).toBe(1);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ['error', 'stopping for a fault nothing in this process recovers from'],
      ['info', 'stopping'],
      ['info', 'cleaned up'],
      ['info', 'stopped'],
    ]);
    expect(lines[0]!.reason).toBe('the consumer of group g stopped: gave up');
  });
});
