// The uploader CLI as integrators run it (CONTRACT.md "Uploader CLI"): `npm run --silent upload --
// FILE …` against the running service, with a fresh account per test. Checks the summary line,
// the failed-rows report, resuming after a kill, reruns (all duplicates), 429 handling and the
// fatal errors.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKeyStore } from '../../common/auth/key-store.ts';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { bucketsOf, usageKeys } from '../../common/usage/keys.ts';
import { api, baseUrl, createTestKey, env, testClickHouse, testRedis } from '../support/api.ts';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function upload(args: string[], extraEnv: Record<string, string | undefined>): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'upload', '--', ...args], {
      env: { ...process.env, RLS_API_URL: `${baseUrl()}/api/v1`, INIT_CWD: undefined, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }));
  });
}

/** The summary: the last stdout line, which must be the only one. */
function summaryOf(run: Run) {
  const lines = run.stdout.split('\n').filter(Boolean);
  expect(lines, run.stderr).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

function reportOf(path: string): string[][] {
  const [header, ...lines] = readFileSync(path, 'utf8').trimEnd().split('\n');
  expect(header).toBe('row,field,code,message');
  // Our messages hold no line breaks; split cells by the CSV rules for quotes and commas.
  return lines.map((line) =>
    [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, 4).map((m) => m[1]!),
  );
}

function workDir(): string {
  return mkdtempSync(join(tmpdir(), 'upload-it-'));
}

let seq = 0;
/** A valid CSV row of the columns below, unique per call (title, address, external_id). */
function goodCells(tag: string): string[] {
  seq++;
  return [
    `"Flat ${tag}-${seq}, Masaki"`,
    '"Bright, with ""sea view"""',
    'apartment',
    String(700_000 + seq),
    'TZS',
    '2',
    '1',
    '-6.75',
    '39.28',
    'wifi|parking',
    'https://img.example.com/a.jpg|https://img.example.com/b.jpg',
    `${tag}-${seq}`,
  ];
}
const columns =
  'title,description,property_type,price,currency,bedrooms,bathrooms,latitude,longitude,amenities,images,external_id';

function goodListing(tag: string) {
  seq++;
  return {
    title: `House ${tag}-${seq}`,
    description: 'Garden and generator',
    property_type: 'house',
    price: 2_000_000 + seq,
    latitude: -6.8,
    longitude: 39.2,
    amenities: ['generator'],
    external_id: `${tag}-${seq}`,
  };
}

/** `count` rows; every 10th is bad in one of three ways the server reports per field. */
function bigCsv(tag: string, count: number): { text: string; good: number; bad: number } {
  const lines = [columns];
  let bad = 0;
  for (let i = 1; i <= count; i++) {
    const cells = goodCells(tag);
    if (i % 10 === 0) {
      bad++;
      if (i % 30 === 0) cells[3] = '-1';
      else if (i % 20 === 0) cells[2] = 'castle';
      else cells[8] = '';
    }
    lines.push(cells.join(','));
  }
  return { text: lines.join('\n') + '\n', good: count - bad, bad };
}

async function createdTotal(key: string): Promise<number> {
  const status = await api('GET', '/api/v1/listings/bulk', { key });
  return status.body.usage.total.listings.created;
}

describe('upload CLI (happy)', () => {
  it('uploads a CSV with good and bad rows: exact summary and report, --wait until stored', async () => {
    const { key, account_id } = await createTestKey();
    const dir = workDir();
    const file = join(dir, 'listings.csv');
    const tag = `h${Date.now()}`;
    const rows = [
      columns,
      goodCells(tag).join(','),
      // 2: price not a number → the server's invalid_type, mapped back to row 2
      goodCells(tag)
        .map((cell, i) => (i === 3 ? 'cheap' : cell))
        .join(','),
      '', // blank line: not a row
      goodCells(tag).join(','),
      // 4: three errors in one row, one report line each
      goodCells(tag)
        .map((cell, i) => (i === 2 ? 'castle' : i === 5 ? '2.5' : i === 8 ? '' : cell))
        .join(','),
      // 5: a broken quote the client cannot map
      '"Broken "quote,x,apartment,1,TZS,1,1,,,,,',
      // 6: too few cells
      'Short,row,apartment',
      goodCells(tag).join(','),
    ];
    writeFileSync(file, rows.join('\r\n') + '\r\n');

    const run = await upload([file, '--wait'], {
      RLS_API_KEY: key,
      RLS_UPLOAD_STATE_DIR: join(dir, 'state'),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run)).toEqual({
      rows: 7,
      created: 3,
      duplicates: 0,
      failed: 4,
      batches: 1,
      report: join(dir, 'listings.report.csv'),
    });
    const report = reportOf(join(dir, 'listings.report.csv'));
    expect(report.map(([row, field, code]) => [row, field, code])).toEqual([
      ['2', 'price', 'invalid_type'],
      ['4', 'property_type', 'invalid_enum'],
      ['4', 'bedrooms', 'not_integer'],
      ['4', 'longitude', 'coordinates_incomplete'],
      ['5', '', 'unparseable_row'],
      ['6', '', 'unparseable_row'],
    ]);
    expect(report[4]![3]).toMatch(/unexpected character after the closing quote/);
    expect(report[5]![3]).toBe('"line 8: 3 cells, but the header has 12 columns"');

    // --wait returned: every created listing is stored, with its amenities and images as lists.
    const stored = await queryRows<{ title: string; amenities: string[]; images: string[] }>(
      testClickHouse(),
      'SELECT title, amenities, images FROM listings WHERE account_id = {account:String} ORDER BY title',
      { account: account_id },
    );
    expect(stored).toHaveLength(3);
    expect(stored[0]).toMatchObject({ amenities: ['wifi', 'parking'] });
    expect(stored[0]!.images).toHaveLength(2);
  });

  it('uploads NDJSON and a JSON array; an unparseable line or element is reported, not sent', async () => {
    const { key } = await createTestKey();
    const dir = workDir();
    const tag = `n${Date.now()}`;
    const ndjson = join(dir, 'listings.ndjson');
    writeFileSync(
      ndjson,
      [goodListing(tag), goodListing(tag)].map((l) => JSON.stringify(l)).join('\n') +
        '\n{"title": oops}\n' +
        JSON.stringify({ ...goodListing(tag), price: 0 }) +
        '\n\n',
    );
    const jsonFile = join(dir, 'listings.json');
    writeFileSync(
      jsonFile,
      JSON.stringify([goodListing(tag), { ...goodListing(tag), colour: 'blue' }], null, 2).replace(
        /\]$/,
        ', [1, 2]\n]',
      ),
    );
    const stateDir = join(dir, 'state');

    const first = await upload([ndjson], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: stateDir });
    expect(first.code, first.stderr).toBe(0);
    expect(summaryOf(first)).toEqual({
      rows: 4,
      created: 2,
      duplicates: 0,
      failed: 2,
      batches: 1,
      report: join(dir, 'listings.report.csv'),
    });
    expect(reportOf(join(dir, 'listings.report.csv')).map((r) => r.slice(0, 3))).toEqual([
      ['3', '', 'unparseable_row'],
      ['4', 'price', 'not_positive'],
    ]);

    const report = join(dir, 'array-failures.csv');
    const second = await upload([jsonFile, '--report', report], {
      RLS_API_KEY: key,
      RLS_UPLOAD_STATE_DIR: stateDir,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(summaryOf(second)).toEqual({ rows: 3, created: 1, duplicates: 0, failed: 2, batches: 1, report });
    expect(reportOf(report).map((r) => r.slice(0, 3))).toEqual([
      ['2', 'colour', 'unknown_field'],
      ['3', '', 'invalid_type'],
    ]);
  });

  it('creates nothing new when the same file is uploaded again: all duplicates, same report', async () => {
    const { key } = await createTestKey();
    const dir = workDir();
    const file = join(dir, 'again.csv');
    const data = bigCsv(`d${Date.now()}`, 150);
    writeFileSync(file, data.text);
    const stateDir = join(dir, 'state');

    const first = await upload([file], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: stateDir });
    expect(first.code, first.stderr).toBe(0);
    const report = join(dir, 'again.report.csv');
    expect(summaryOf(first)).toEqual({
      rows: 150,
      created: data.good,
      duplicates: 0,
      failed: data.bad,
      batches: 2,
      report,
    });
    const firstReport = readFileSync(report, 'utf8');

    const second = await upload([file], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: stateDir });
    expect(second.code, second.stderr).toBe(0);
    expect(summaryOf(second)).toEqual({
      rows: 150,
      created: 0,
      duplicates: data.good,
      failed: data.bad,
      batches: 2,
      report,
    });
    expect(readFileSync(report, 'utf8')).toBe(firstReport);
    expect(await createdTotal(key)).toBe(data.good);
  });

  it('resumes after being killed mid-way: no listing created twice, totals of the whole file', async () => {
    const { key, account_id } = await createTestKey({ tier: 'enterprise', rateLimit: 10_000 });
    const dir = workDir();
    const file = join(dir, 'big.csv');
    const data = bigCsv(`k${Date.now()}`, 700);
    writeFileSync(file, data.text);
    const stateDir = join(dir, 'state');
    const report = join(dir, 'big.report.csv');

    // Test hook: SIGKILL once 2 batches are recorded and the 3rd is answered but not recorded
    // (with 4 in flight, later batches may be created on the server too).
    const killed = await upload([file], {
      RLS_API_KEY: key,
      RLS_UPLOAD_STATE_DIR: stateDir,
      RLS_UPLOAD_KILL_AFTER_BATCHES: '2',
    });
    expect(killed.signal ?? killed.code).not.toBe(0);
    expect(killed.stdout).toBe('');
    const createdBeforeResume = await createdTotal(key);
    expect(createdBeforeResume).toBeGreaterThanOrEqual(3 * 90);

    const resumed = await upload([file, '--wait'], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: stateDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('resuming: batches 1–2');
    expect(summaryOf(resumed)).toEqual({
      rows: 700,
      created: data.good,
      duplicates: 0,
      failed: data.bad,
      batches: 7,
      report,
    });
    const reported = reportOf(report);
    expect(new Set(reported.map(([row]) => row)).size).toBe(data.bad);
    expect(reported.map(([row]) => Number(row))).toEqual(
      [...reported.map(([row]) => Number(row))].sort((a, b) => a - b),
    );

    // The server counted each listing created once, and stored each once.
    expect(await createdTotal(key)).toBe(data.good);
    const [stored] = await queryRows<{ rows: string; ids: string }>(
      testClickHouse(),
      'SELECT count() AS rows, uniqExact(listing_id) AS ids FROM listings WHERE account_id = {account:String}',
      { account: account_id },
    );
    expect({ rows: Number(stored!.rows), ids: Number(stored!.ids) }).toEqual({
      rows: data.good,
      ids: data.good,
    });

    const rerun = await upload([file], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: stateDir });
    expect(summaryOf(rerun)).toMatchObject({ created: 0, duplicates: data.good, failed: data.bad });
  }, 120_000);

  it('waits out a 429 as Retry-After and RateLimit-Reset say, then finishes', async () => {
    const { key, id } = await createTestKey({ tier: 'enterprise', rateLimit: 3 });
    const redis = await testRedis();
    const windowKey = `${env.REDIS_KEY_PREFIX}rl:${id}`;
    const usageDay = usageKeys(env.REDIS_KEY_PREFIX, id).day(bucketsOf(new Date()).day);
    const rateLimited = async () => Number((await redis.hget(usageDay, 'rate_limited')) ?? 0);
    // Use up the window (3 requests), then keep it closed for 3 s at a time until the uploader has
    // been answered 429 (the key's rate_limited counter moves), however long npm takes to start:
    // the test waits seconds, not the minute of a real window.
    for (let i = 0; i < 3; i++) expect((await api('GET', '/api/v1/listings/bulk', { key })).status).toBe(200);
    const limitedBefore = await rateLimited();

    const dir = workDir();
    const file = join(dir, 'limited.csv');
    const data = bigCsv(`r${Date.now()}`, 150); // preflight + 2 batches = the 3 requests of the next window
    writeFileSync(file, data.text);
    const running = upload([file], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: join(dir, 'state') });
    let answered429At = 0;
    while (!answered429At) {
      await redis.pexpire(windowKey, 3_000);
      if ((await rateLimited()) > limitedBefore) answered429At = Date.now();
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/rate limited: waiting [1-3] s/);
    expect(Date.now() - answered429At).toBeGreaterThan(1_500); // it waited for the window to reopen
    expect(summaryOf(run)).toMatchObject({ rows: 150, created: data.good, failed: data.bad, batches: 2 });
  });

  it('retries a 503 and a lost answer with the same Idempotency-Key and body: each batch counted once', async () => {
    const { key } = await createTestKey();
    // A proxy in front of the API: the first POST gets a 503, the second is forwarded but its
    // answer is dropped (the server created the listings; the client sees a broken connection).
    const seen: { key: string | undefined; body: string; outcome: string }[] = [];
    const target = new URL(baseUrl());
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const isPost = req.method === 'POST';
        const attempt = seen.filter((s) => s.outcome !== 'get').length;
        const outcome = !isPost ? 'get' : attempt === 0 ? '503' : attempt === 1 ? 'dropped' : 'forwarded';
        seen.push({
          key: req.headers['idempotency-key'] as string | undefined,
          body: body.toString(),
          outcome,
        });
        if (outcome === '503') {
          res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' });
          res.end(
            '{"error":{"code":"dependency_unavailable","message":"kafka is unavailable; retry later"}}',
          );
          return;
        }
        const forward = http.request(
          {
            host: target.hostname,
            port: target.port,
            path: req.url,
            method: req.method,
            headers: req.headers,
          },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => parts.push(chunk));
            answer.on('end', () => {
              if (outcome === 'dropped') return req.socket.destroy();
              res.writeHead(answer.statusCode!, answer.headers);
              res.end(Buffer.concat(parts));
            });
          },
        );
        forward.end(body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const dir = workDir();
      const file = join(dir, 'flaky.csv');
      const data = bigCsv(`f${Date.now()}`, 100);
      writeFileSync(file, data.text);
      const run = await upload([file], {
        RLS_API_KEY: key,
        RLS_API_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/v1`,
        RLS_UPLOAD_STATE_DIR: join(dir, 'state'),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/server error 503 dependency_unavailable; retrying/);
      // The lost answer's retry is proven by the proxy's records below (its ~1 s backoff is not always announced).
      expect(summaryOf(run)).toMatchObject({
        rows: 100,
        created: data.good,
        duplicates: 0,
        failed: data.bad,
        batches: 1,
      });
      const posts = seen.filter((s) => s.outcome !== 'get');
      expect(posts.map((p) => p.outcome)).toEqual(['503', 'dropped', 'forwarded']);
      expect(new Set(posts.map((p) => p.key)).size).toBe(1);
      expect(new Set(posts.map((p) => p.body)).size).toBe(1);
      expect(posts[0]!.key).toMatch(/^rls-upload-[0-9a-f]{16}-[0-9a-f]{12}-1$/);
      expect(await createdTotal(key)).toBe(data.good);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe('upload CLI (error)', () => {
  it('exits non-zero with the reason on stderr for a missing file, printing no summary', async () => {
    const { key } = await createTestKey();
    const run = await upload([join(workDir(), 'missing.csv')], { RLS_API_KEY: key });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/missing\.csv: no such file/);
  });

  it('exits non-zero for files it cannot read as listings: a JSON object, a foreign CSV, binary', async () => {
    const { key } = await createTestKey();
    const dir = workDir();
    const cases: [string, string | Buffer, RegExp][] = [
      ['object.json', '{"listings": []}', /not readable as a JSON array of listings/],
      ['semicolons.csv', 'title;price\nA;1\n', /no header column is a listing field/],
      ['sheet.csv', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00]), /not a text file/],
      ['latin1.csv', Buffer.from('title,price\nCaf\xe9,1\n', 'latin1'), /not UTF-8 text/],
      ['rows.ndjson', 'title,price\n', /not readable as NDJSON/],
    ];
    for (const [name, content, reason] of cases) {
      writeFileSync(join(dir, name), content);
      const run = await upload([join(dir, name)], {
        RLS_API_KEY: key,
        RLS_UPLOAD_STATE_DIR: join(dir, 'state'),
      });
      expect(run.code, name).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(reason);
    }
  });

  it('refuses a bad command line with exit 2 and the usage', async () => {
    const run = await upload(['a.csv', '--format', 'xml'], { RLS_API_KEY: 'x' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--format must be one of csv, ndjson, json/);
    expect(run.stderr).toContain('usage: npm run --silent upload --');
  });
});

describe('upload CLI (security)', () => {
  it('stops before sending anything when the key is unknown, malformed, revoked or missing', async () => {
    const dir = workDir();
    const file = join(dir, 'listings.csv');
    writeFileSync(file, `${columns}\n${goodCells('s').join(',')}\n`);
    const revoked = await createTestKey();
    expect((await api('GET', '/api/v1/listings/bulk', { key: revoked.key })).status).toBe(200);
    await createKeyStore(await testRedis(), env.REDIS_KEY_PREFIX).revoke(revoked.id);

    for (const [key, reason] of [
      ['svc_live_not-a-key', /401 invalid_api_key/],
      [revoked.key, /403 revoked_api_key/],
    ] as const) {
      const run = await upload([file], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: join(dir, 'state') });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/the API refused the key in RLS_API_KEY/);
      expect(run.stderr).toMatch(reason);
      expect(run.stderr).not.toContain(key); // the key itself is never printed
    }
    const missing = await upload([file], { RLS_API_KEY: undefined });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/RLS_API_KEY is required/);
  });
});
