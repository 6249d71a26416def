// The uploader's files on disk: the checkpoint journal (resume after a kill, one run at a time)
// and the failed-rows report cells.
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCheckpoint, type UploadIdentity } from '../../upload/checkpoint.ts';
import type { BatchOutcome } from '../../upload/outcome.ts';
import { csvCell } from '../../upload/report.ts';

const identity: UploadIdentity = {
  file: '/data/listings.csv',
  size: 1234,
  mtime_ms: 1,
  format: 'csv',
  api_url: 'http://127.0.0.1:8080/api/v1',
  key_id: 'key_x',
};

function outcome(batch: number): BatchOutcome {
  return {
    batch,
    firstRow: (batch - 1) * 100 + 1,
    lastRow: batch * 100,
    rows: 100,
    batchId: `b${batch}`,
    posted: true,
    created: 99,
    duplicates: 0,
    failed: 1,
    errors: [
      { row: batch * 100, field: 'price', code: 'not_positive', message: 'price must be greater than 0' },
    ],
  };
}

async function entries(checkpoint: Awaited<ReturnType<typeof openCheckpoint>>) {
  const out: BatchOutcome[] = [];
  for await (const entry of checkpoint.entries()) out.push(entry);
  return out;
}

describe('checkpoint journal', () => {
  it('happy: resumes with the recorded batches, the same run id and Idempotency-Keys', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upload-ckpt-'));
    const first = await openCheckpoint(dir, identity);
    first.record(outcome(1));
    first.record(outcome(2));
    const key = first.idempotencyKey(3);
    first.close();
    first.releaseLock();

    const resumed = await openCheckpoint(dir, identity);
    expect(resumed.done).toBe(2);
    expect(resumed.last).toEqual(outcome(2));
    expect(await entries(resumed)).toEqual([outcome(1), outcome(2)]);
    expect(resumed.idempotencyKey(3)).toBe(key);
    expect(key).toMatch(/^[\x21-\x7e]{1,255}$/);
    await resumed.remove();

    // A finished upload leaves nothing: the next run of the same file is a new run with new keys.
    const again = await openCheckpoint(dir, identity);
    expect(again.done).toBe(0);
    expect(again.idempotencyKey(3)).not.toBe(key);
    await again.remove();
  });

  it('error: drops a line cut short by a kill and appends cleanly after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upload-ckpt-'));
    const first = await openCheckpoint(dir, identity);
    first.record(outcome(1));
    first.record(outcome(2));
    first.close();
    first.releaseLock();
    // A complete-looking JSON line without its newline, as a kill between write and newline leaves it.
    appendFileSync(first.path, JSON.stringify({ batch: 3, rows: 1 }).slice(0, 12));

    const resumed = await openCheckpoint(dir, identity);
    expect(resumed.done).toBe(2);
    resumed.record(outcome(3));
    resumed.close();
    const lines = readFileSync(resumed.path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.map((line) => JSON.parse(line).batch)).toEqual([undefined, 1, 2, 3]);
    await resumed.remove();
  });

  it('security: never resumes another file, another key or another server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upload-ckpt-'));
    const first = await openCheckpoint(dir, identity);
    first.record(outcome(1));
    first.close();
    first.releaseLock();
    for (const other of [
      { ...identity, key_id: 'key_y' },
      { ...identity, size: 1235 },
      { ...identity, api_url: 'http://other/api/v1' },
    ]) {
      const checkpoint = await openCheckpoint(dir, other);
      expect(checkpoint.done).toBe(0);
      await checkpoint.remove();
    }
  });

  it('error: refuses a second upload of the same file and key while one runs; takes over a dead one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upload-ckpt-'));
    const first = await openCheckpoint(dir, identity);
    const lockPath = first.path.replace(/\.ndjson$/, '.lock');
    writeFileSync(lockPath, String(process.ppid)); // a live process holds it
    await expect(openCheckpoint(dir, identity)).rejects.toThrow(/another upload of .* is running/);
    writeFileSync(lockPath, '2147483646'); // no such process: a killed run
    const taken = await openCheckpoint(dir, identity);
    expect(readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    await taken.remove();
  });
});

describe('report cells', () => {
  it('happy: quotes commas, quotes and line breaks per RFC 4180', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a, "b"\nc')).toBe('"a, ""b""\nc"');
  });

  it('security: defuses text a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://x") is not a known field')).toBe(
      '"\'=HYPERLINK(""http://x"") is not a known field"',
    );
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('+1')).toBe("'+1");
  });
});
