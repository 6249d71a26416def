// The Prometheus alert rules (infra/deploy/prometheus/alerts.yml) are valid for Prometheus and
// pass their unit tests (alerts.test.yml: one test group per alert), as promtool checks them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROMTOOL } from '../../infra/local/promtool.mjs';
import { repoRoot } from '../../infra/local/settings.mjs';

const run = promisify(execFile);
const rulesDir = path.join(repoRoot, 'infra/deploy/prometheus');

async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { cwd: rulesDir, timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

function alertNames(file: string, pattern: RegExp): string[] {
  return [...fs.readFileSync(path.join(rulesDir, file), 'utf8').matchAll(pattern)].map((m) => m[1]!).sort();
}

describe('alert rules', () => {
  it('pass promtool check rules', async () => {
    const result = await promtool('check', 'rules', 'alerts.yml');
    expect(result.output).toContain('SUCCESS');
    expect(result.code, result.output).toBe(0);
  });

  it('and the example Prometheus configuration beside them passes promtool check config', async () => {
    const result = await promtool('check', 'config', 'prometheus.yml');
    expect(result.code, result.output).toBe(0);
  });

  it('pass promtool test rules', async () => {
    const result = await promtool('test', 'rules', 'alerts.test.yml');
    expect(result.code, result.output).toBe(0);
  });

  it('has a unit test and a runbook section for every alert', () => {
    const alerts = alertNames('alerts.yml', /^\s*- alert: (\w+)/gm);
    expect(alerts.length).toBeGreaterThan(0);
    expect(
      alertNames('alerts.test.yml', /^\s*alertname: (\w+)/gm).filter((n, i, all) => all.indexOf(n) === i),
    ).toEqual(alerts);
    const runbooks = fs.readFileSync(path.join(repoRoot, 'docs/runbooks.md'), 'utf8');
    for (const alert of alerts)
      expect(runbooks, `docs/runbooks.md section for ${alert}`).toContain(`## ${alert}`);
  });
});
