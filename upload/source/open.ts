// Opens the input file for reading as rows: checks it exists and is a readable regular file (clear
// fatal errors instead of a stack trace), picks the format (--format, else the file extension, else
// the first character), and reads up to the first row so an unreadable format fails before anything
// is sent. The rows stay a stream: the file is never held in memory.
import { open, realpath, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { FatalError } from '../fatal.ts';
import { csvRows } from './csv.ts';
import { readText } from './decode.ts';
import { jsonArrayRows } from './json-array.ts';
import { ndjsonRows } from './ndjson.ts';
import type { SourceRow } from './rows.ts';

export const formats = ['csv', 'ndjson', 'json'] as const;
export type Format = (typeof formats)[number];

const byExtension: Record<string, Format> = {
  '.csv': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
};

export interface OpenedSource {
  /** Canonical path (symlinks resolved): part of the checkpoint identity. */
  path: string;
  size: number;
  mtimeMs: number;
  format: Format;
  rows: AsyncGenerator<SourceRow>;
  bytesRead(): number;
}

export async function openSource(
  path: string,
  requested: Format | undefined,
  warn: (message: string) => void,
): Promise<OpenedSource> {
  const label = path;
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new FatalError(
      error.code === 'ENOENT'
        ? `${label}: no such file`
        : `${label}: cannot read it (${error.code ?? error.message})`,
    );
  });
  if (info.isDirectory()) throw new FatalError(`${label} is a directory, not a file`);
  if (!info.isFile()) throw new FatalError(`${label} is not a regular file`);
  const format = requested ?? byExtension[extname(path).toLowerCase()] ?? (await sniff(path, label));
  const canonical = await realpath(path);
  const text = readText(path, label);
  const options = { label, warn };
  const rows =
    format === 'csv'
      ? csvRows(text, options)
      : format === 'ndjson'
        ? ndjsonRows(text, options)
        : jsonArrayRows(text, options);
  return {
    path: canonical,
    size: info.size,
    mtimeMs: info.mtimeMs,
    format,
    rows: await peeked(rows),
    bytesRead: text.bytesRead,
  };
}

/** Without --format or a known extension: `[` is a JSON array, `{` NDJSON, anything else CSV. */
async function sniff(path: string, label: string): Promise<Format> {
  const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new FatalError(`${label}: cannot read it (${error.code ?? error.message})`);
  });
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    const head = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    if (head.startsWith('[')) return 'json';
    if (head.startsWith('{')) return 'ndjson';
    return 'csv';
  } finally {
    await handle.close();
  }
}

/** Pulls the first row now (format errors surface here), then yields it and the rest. */
async function peeked(rows: AsyncGenerator<SourceRow>): Promise<AsyncGenerator<SourceRow>> {
  const first = await rows.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    yield* rows;
  })();
}
