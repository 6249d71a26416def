// The uploader CLI as integrators run it (CONTRACT.md "Uploader CLI"): `npm run --silent upload --
// FILE …` against the running service, with a fresh account per test. Checks the summary line, the
// failed-rows report, reruns (all duplicates) and the fatal errors; recovery (kill and resume, 429,
// 503 and lost answers) is in upload-cli-recovery.test.ts.
import { linkSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKeyStore } from '../../common/auth/key-store.ts';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { api, createTestKey, env, testClickHouse, testRedis } from '../support/api.ts';
import {
  columns,
  createdTotal,
  goodCells,
  goodListing,
  reportOf,
  upload,
  uploadSummary,
  workDir,
  writeBigCsv,
} from '../support/upload-cli.ts';

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

    expect(
      await uploadSummary([file, '--wait'], {
        RLS_API_KEY: key,
        RLS_UPLOAD_STATE_DIR: join(dir, 'state'),
      }),
    ).toEqual({
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

    expect(await uploadSummary([ndjson], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: stateDir })).toEqual({
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
    expect(
      await uploadSummary([jsonFile, '--report', report], {
        RLS_API_KEY: key,
        RLS_UPLOAD_STATE_DIR: stateDir,
      }),
    ).toEqual({ rows: 3, created: 1, duplicates: 0, failed: 2, batches: 1, report });
    expect(reportOf(report).map((r) => r.slice(0, 3))).toEqual([
      ['2', 'colour', 'unknown_field'],
      ['3', '', 'invalid_type'],
    ]);
  });

  it('creates nothing new when the same file is uploaded again: all duplicates, same report', async () => {
    const { key } = await createTestKey();
    const { dir, file, data } = writeBigCsv('again', `d${Date.now()}`, 150);
    const stateDir = join(dir, 'state');

    const report = join(dir, 'again.report.csv');
    expect(await uploadSummary([file], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: stateDir })).toEqual({
      rows: 150,
      created: data.good,
      duplicates: 0,
      failed: data.bad,
      batches: 2,
      report,
    });
    const firstReport = readFileSync(report, 'utf8');

    expect(await uploadSummary([file], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: stateDir })).toEqual({
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
  it('never writes the report over its input through a hard link, nor through a symlink planted at the report path', async () => {
    const dir = workDir();
    const file = join(dir, 'listings.csv');
    const input = `${columns}\n${goodCells('link').join(',')}\n`;
    writeFileSync(file, input);
    const { key } = await createTestKey();
    const env = { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: join(dir, 'state') };

    const hardLink = join(dir, 'other-name.csv');
    linkSync(file, hardLink);
    const linked = await upload([file, '--report', hardLink], env);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toMatch(/is the input file itself/);
    expect(readFileSync(file, 'utf8')).toBe(input);

    // The default report path (listings.report.csv) planted as a symlink to a file of the user's.
    const victim = join(dir, 'precious.txt');
    writeFileSync(victim, 'keep me\n');
    symlinkSync(victim, join(dir, 'listings.report.csv'));
    const planted = await upload([file], env);
    expect(planted.code).not.toBe(0);
    expect(planted.stderr).toMatch(/cannot write the report .*symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    symlinkSync(file, join(dir, 'to-input.csv'));
    const toInput = await upload([file, '--report', join(dir, 'to-input.csv')], env);
    expect(toInput.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe(input);
  });

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
