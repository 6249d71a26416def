// The uploader CLI run as integrators run it (`npm run --silent upload -- FILE …`), and the files and
// reads its integration tests share (test/integration/upload-cli*.test.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { api, baseUrl } from './api.ts';

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function upload(args: string[], extraEnv: Record<string, string | undefined>): Promise<Run> {
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
export function summaryOf(run: Run) {
  const lines = run.stdout.split('\n').filter(Boolean);
  expect(lines, run.stderr).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

/** Runs the uploader, expects it to exit 0, and returns its summary line. */
export async function uploadSummary(args: string[], extraEnv: Record<string, string | undefined>) {
  const run = await upload(args, extraEnv);
  expect(run.code, run.stderr).toBe(0);
  return summaryOf(run);
}

export function reportOf(path: string): string[][] {
  const [header, ...lines] = readFileSync(path, 'utf8').trimEnd().split('\n');
  expect(header).toBe('row,field,code,message');
  // Our messages hold no line breaks; split cells by the CSV rules for quotes and commas.
  return lines.map((line) =>
    [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, 4).map((m) => m[1]!),
  );
}

export function workDir(): string {
  return mkdtempSync(join(tmpdir(), 'upload-it-'));
}

let seq = 0;
/** A valid CSV row of the columns below, unique per call (title, address, external_id). */
export function goodCells(tag: string): string[] {
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
export const columns =
  'title,description,property_type,price,currency,bedrooms,bathrooms,latitude,longitude,amenities,images,external_id';

export function goodListing(tag: string) {
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
/** A fresh work directory holding `<name>.csv`: `count` rows of bigCsv tagged `tag`. */
export function writeBigCsv(name: string, tag: string, count: number) {
  const dir = workDir();
  const file = join(dir, `${name}.csv`);
  const data = bigCsv(tag, count);
  writeFileSync(file, data.text);
  return { dir, file, data };
}

export function bigCsv(tag: string, count: number): { text: string; good: number; bad: number } {
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

export async function createdTotal(key: string): Promise<number> {
  const status = await api('GET', '/api/v1/listings/bulk', { key });
  return status.body.usage.total.listings.created;
}
