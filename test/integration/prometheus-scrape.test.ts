// A real Prometheus (Debian's package, as `npm test` installs it) scrapes every process of the
// stack under test — the API, the stream worker, the image process — and loads the alert rules:
// every target up, and every rule loaded and evaluated without an error.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { repoRoot } from '../../infra/local/settings.mjs';
import { eventually } from '../support/api.ts';

const PROMETHEUS = '/usr/bin/prometheus';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-prometheus-'));
let prometheus: ChildProcess | undefined;

/** A free TCP port on loopback (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

afterAll(() => {
  prometheus?.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('Prometheus with the alert rules', () => {
  it('happy: scrapes the API, the stream worker and the image process, and loads every rule', async () => {
    const host = (url: string) => new URL(url).host;
    const images = `127.0.0.1:${process.env.RLS_TEST_IMAGES_METRICS_PORT}`;
    const targets = { api: host(inject('baseUrl')), stream: host(inject('streamMetricsUrl')), images };
    const config = [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      `rule_files: ['${path.join(repoRoot, 'infra/deploy/prometheus/alerts.yml')}']`,
      'scrape_configs:',
      ...Object.entries(targets).map(
        ([job, target]) => `  - { job_name: ${job}, static_configs: [{ targets: ['${target}'] }] }`,
      ),
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), `${config}\n`);
    const port = await freePort();
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    const query = async (q: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(q)}`);
      return (
        (await response.json()) as {
          data: { result: { metric: Record<string, string>; value: [number, string] }[] };
        }
      ).data.result;
    };
    const up = await eventually(
      async () => {
        const result = await query('up').catch(() => []);
        return result.length === 3 && result.every((r) => r.value[1] === '1') ? result : undefined;
      },
      30_000,
      'every target scraped and up',
    );
    expect(up.map((r) => r.metric.job).sort()).toEqual(['api', 'images', 'stream']);
    // Each process's own series, and the Redis ceiling the memory alert reads (from every process).
    expect((await query('nodejs_version_info')).map((r) => r.metric.job).sort()).toEqual([
      'api',
      'images',
      'stream',
    ]);
    expect((await query('redis_memory_max_bytes > 0')).length).toBeGreaterThan(0);

    type Rules = { data: { groups: { rules: { name: string; health: string }[] }[] } };
    const rules = async () =>
      ((await (await fetch(`http://127.0.0.1:${port}/api/v1/rules`)).json()) as Rules).data.groups.flatMap(
        (group) => group.rules,
      );
    const alertsFile = fs.readFileSync(path.join(repoRoot, 'infra/deploy/prometheus/alerts.yml'), 'utf8');
    const defined = [...alertsFile.matchAll(/- alert: (\w+)/g)].map((m) => m[1]).sort();
    // Loaded, and evaluated once each without an error.
    const evaluated = await eventually(
      async () => {
        const loaded = await rules();
        return loaded.every((rule) => rule.health !== 'unknown') ? loaded : undefined;
      },
      15_000,
      'every rule evaluated',
    );
    expect(evaluated.map((rule) => rule.name).sort()).toEqual(defined);
    for (const rule of evaluated) expect(rule.health, `${rule.name} evaluates`).toBe('ok');
  }, 60_000);
});
