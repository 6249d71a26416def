// A benchmark build as the stream worker's process sees it (common/bench-build.ts): announced at
// boot before anything is connected, and refused at boot in production. Processes of their own, so
// not in the unit loop; they need no service (nothing listens on the ports they are given).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const production = {
  NODE_ENV: 'production',
  KAFKA_BROKERS: 'kafka-1:9092',
  CLICKHOUSE_URL: 'https://clickhouse.internal:8443',
  REDIS_URL: 'rediss://redis.internal:6380',
};

describe("benchmark build at the stream worker's boot", () => {
  it('happy: the stream worker started as a benchmark build says so before it connects', async () => {
    // Nothing listens on the brokers' port: the announcement comes first, then the process is stopped.
    const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['stream/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        KAFKA_BROKERS: '127.0.0.1:1',
        REDIS_URL: 'redis://127.0.0.1:1',
        CLICKHOUSE_URL: 'http://127.0.0.1:1',
        LOG_LEVEL: 'error',
        RLS_BENCH_BUILD: '1',
        RLS_BENCH_WITHOUT: 'owners',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const announced = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('BENCHMARK BUILD')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(output.includes('BENCHMARK BUILD'));
      });
    });
    child.kill('SIGKILL');
    expect(announced, output).toBe(true);
    expect(output).toMatch(/"without":\["owners"\]/);
  }, 75_000);

  it('error: the stream worker in production refuses it at boot, before it connects to anything', () => {
    const result = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['stream/main.ts'], {
      cwd: root,
      env: { ...process.env, ...production, RLS_BENCH_BUILD: '1', RLS_BENCH_WITHOUT: 'owners' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^stream: Invalid environment configuration:\n {2}RLS_BENCH_WITHOUT: a benchmark build/,
    );
  });
});
