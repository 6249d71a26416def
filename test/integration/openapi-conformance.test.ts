// The OpenAPI document is exact: Schemathesis (pinned, infra/local/schemathesis/)
// generates valid and invalid requests for every documented operation of the running gateway from
// /api/v1/openapi.json and runs all its checks: statuses, content types, headers and bodies as
// documented, schema-valid requests accepted and invalid ones refused, 405 with Allow for undeclared
// methods, no 5xx. The documented exceptions are in schemathesis.toml; any failure fails this test.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { repoRoot } from '../../infra/local/settings.mjs';
import { api, createTestKey } from '../support/api.ts';

const conf = path.join(repoRoot, 'infra/local/schemathesis');

function schemathesis(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const python = process.env.RLS_SCHEMATHESIS_PYTHON;
  if (!python) throw new Error('RLS_SCHEMATHESIS_PYTHON is unset: run the suite with npm test');
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    // cwd: Schemathesis keeps a .schemathesis/ cache where it runs; not in the work tree.
    const child = spawn(python, ['-m', 'schemathesis.cli', ...args], {
      env: { ...process.env, ...env },
      cwd,
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('OpenAPI document against the running service (Schemathesis)', () => {
  it('happy: every operation passes every check', { timeout: 600_000 }, async () => {
    // A test-mode key (its data feeds only test analytics) whose own rate limit leaves room for
    // the generated requests, so they reach the endpoints instead of all being 429s.
    const { key } = await createTestKey({ mode: 'test', tier: 'enterprise', rateLimit: 1_000_000 });
    const reportDir = path.join(
      process.env.RLS_TEST_ARTIFACTS_DIR ?? path.join(repoRoot, '.local'),
      'schemathesis',
    );
    fs.mkdirSync(reportDir, { recursive: true });
    const { code, output } = await schemathesis(
      [
        '--config-file',
        path.join(conf, 'schemathesis.toml'),
        'run',
        `${inject('baseUrl')}/api/v1/openapi.json`,
        '--checks',
        'all',
        '--header',
        `X-API-Key: ${key}`,
        '--max-examples',
        '15',
        // One worker: with threads, Hypothesis' lambda descriptions race in CPython 3.11's ast
        // ("AST constructor recursion depth mismatch" runtime errors).
        '--workers',
        '1',
        '--output-truncate',
        'false',
        '--report',
        'junit',
        '--report-dir',
        reportDir,
      ],
      { SCHEMATHESIS_HOOKS: 'hooks', PYTHONPATH: conf, NO_COLOR: '1' },
      reportDir,
    );
    // The whole report on failure: each failure with its curl reproduction.
    expect(code, output).toBe(0);
    expect(output).toMatch(/Tested: \d+/);
  });

  it('error: a method the document does not declare on a path it does is 405 with Allow', async () => {
    const { key } = await createTestKey({ mode: 'test' });
    for (const [method, path, allow] of [
      ['PUT', '/api/v1/listings/bulk', 'GET, HEAD, POST, OPTIONS'],
      ['GET', '/api/v1/listings/status', 'POST, OPTIONS'],
      ['DELETE', '/api/v1/analytics/heatmap', 'GET, HEAD, OPTIONS'],
      ['POST', '/healthz', 'GET, HEAD, OPTIONS'],
    ] as const) {
      // Before the key or the body is looked at: the method alone decides.
      const body = method === 'GET' ? {} : { rawBody: 'not json', headers: { 'Content-Type': 'text/plain' } };
      const response = await api(method, path, { key, ...body });
      expect({ method, path, status: response.status, allow: response.headers.get('allow') }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
      expect(response.body.error.code).toBe('method_not_allowed');
    }
  });
});
