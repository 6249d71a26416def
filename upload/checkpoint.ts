// Resuming after an interruption. The checkpoint is an append-only journal (NDJSON) in the state
// directory, named by a hash of the upload's identity: the file (canonical path, size, mtime,
// format), the API URL and the key's id — so another file, a changed file or another key never picks
// it up. Line 1 is the header with the run id; then one line per finished batch, in batch order,
// with its counts and its failed rows, written and fsynced before the next batch is recorded.
//
// Why this gives "no duplicates and correct totals":
// - a resumed run skips the recorded batches and takes their counts and report lines from here;
// - a batch that was sent but not recorded is sent again with the same Idempotency-Key (derived
//   from the file, the run id and the batch number) and the same bytes, so the API replays its
//   first answer (same counts) instead of running it again;
// - a finished upload deletes its journal, so running the file again is a new run with new keys:
//   the API then answers every listing as a duplicate, as CONTRACT.md requires.
// A kill mid-write leaves at most a partial last line, which is dropped on open.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  fdatasyncSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { mkdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { FatalError } from './fatal.ts';
import type { BatchOutcome } from './outcome.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export interface UploadIdentity {
  file: string;
  size: number;
  mtime_ms: number;
  format: string;
  api_url: string;
  key_id: string;
}

const headerSchema = z.object({
  v: z.literal(1),
  run: z.string().regex(/^[0-9a-f]{12}$/),
  file: z.string(),
  size: z.number(),
  mtime_ms: z.number(),
  format: z.string(),
  api_url: z.string(),
  key_id: z.string(),
  started_at: z.string(),
});
type Header = z.infer<typeof headerSchema>;

const entrySchema = z.object({
  batch: z.number().int().positive(),
  first_row: z.number().int(),
  last_row: z.number().int(),
  rows: z.number().int(),
  batch_id: z.string().nullable(),
  posted: z.boolean(),
  created: z.number().int(),
  duplicates: z.number().int(),
  failed: z.number().int(),
  errors: z.array(z.tuple([z.number().int(), z.string(), z.string(), z.string()])),
});

export class Checkpoint {
  private fd: number | undefined;

  constructor(
    readonly path: string,
    private readonly lockPath: string,
    readonly header: Header,
    /** Batches recorded so far (they are batches 1…done). */
    public done: number,
    /** The last recorded batch, to check the file still splits the same way. */
    public last: BatchOutcome | undefined,
  ) {}

  /** Stable for this file, run and batch: a resend of batch N is recognised by the API. */
  idempotencyKey(batch: number): string {
    return `rls-upload-${checkpointId(this.header).slice(0, 16)}-${this.header.run}-${batch}`;
  }

  /** The recorded batches, read back one at a time (the journal is never loaded whole). */
  async *entries(): AsyncGenerator<BatchOutcome> {
    let seen = 0;
    for await (const entry of readEntries(this.path)) {
      if (seen++ >= this.done) break;
      yield entry;
    }
  }

  record(outcome: BatchOutcome): void {
    if (outcome.batch !== this.done + 1) throw new Error(`checkpoint: batch ${outcome.batch} out of order`);
    this.fd ??= openSync(this.path, 'a');
    writeSync(this.fd, JSON.stringify(encodeEntry(outcome)) + '\n');
    fdatasyncSync(this.fd);
    this.done = outcome.batch;
    this.last = outcome;
  }

  /** The upload finished: nothing to resume. */
  async remove(): Promise<void> {
    this.close();
    await rm(this.path, { force: true });
    this.releaseLock();
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  releaseLock(): void {
    rmLockSync(this.lockPath);
  }
}

function checkpointId(identity: UploadIdentity): string {
  const { file, size, mtime_ms, format, api_url, key_id } = identity;
  return createHash('sha256')
    .update(JSON.stringify([file, size, mtime_ms, format, api_url, key_id]))
    .digest('hex')
    .slice(0, 32);
}

export async function openCheckpoint(stateDir: string, identity: UploadIdentity): Promise<Checkpoint> {
  await mkdir(stateDir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    throw new FatalError(`cannot create the state directory ${stateDir} (${error.code ?? error.message})`);
  });
  const id = checkpointId(identity);
  const path = join(stateDir, `${id}.ndjson`);
  const lockPath = join(stateDir, `${id}.lock`);
  await takeLock(lockPath, identity.file);

  const existing = await scan(path, identity);
  if (existing) {
    return new Checkpoint(path, lockPath, existing.header, existing.done, existing.last);
  }
  const header: Header = {
    v: 1,
    run: randomBytes(6).toString('hex'),
    ...identity,
    started_at: new Date().toISOString(),
  };
  await writeFile(path, JSON.stringify(header) + '\n');
  return new Checkpoint(path, lockPath, header, 0, undefined);
}

/** Reads an existing journal: its header and the complete, consecutive batch lines; drops the rest. */
async function scan(
  path: string,
  identity: UploadIdentity,
): Promise<{ header: Header; done: number; last: BatchOutcome | undefined } | undefined> {
  const size = await stat(path).then(
    (info) => info.size,
    () => undefined,
  );
  if (size === undefined) return undefined;
  let header: Header | undefined;
  let done = 0;
  let last: BatchOutcome | undefined;
  let validBytes = 0;
  // What was valid before the latest line: the state to fall back to if that line is cut short.
  let before = { header, done, last, validBytes };
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) {
    const parsed = parseJson(line);
    const previous = { header, done, last, validBytes };
    if (!header) {
      const result = headerSchema.safeParse(parsed);
      if (!result.success || checkpointId(result.data) !== checkpointId(identity)) break;
      header = result.data;
    } else {
      const result = entrySchema.safeParse(parsed);
      if (!result.success || result.data.batch !== done + 1) break;
      done++;
      last = decodeEntry(result.data);
    }
    validBytes += Buffer.byteLength(line) + 1;
    before = previous;
  }
  lines.close();
  // The last line has no newline: a write cut short. Drop it; its batch is sent again.
  if (validBytes > size) ({ header, done, last, validBytes } = before);
  if (!header) return undefined; // unreadable: start a new run (the file is rewritten)
  if (validBytes < size) await truncate(path, validBytes);
  return { header, done, last };
}

async function* readEntries(path: string): AsyncGenerator<BatchOutcome> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let first = true;
  try {
    for await (const line of lines) {
      if (first) {
        first = false;
        continue;
      }
      const result = entrySchema.safeParse(parseJson(line));
      if (!result.success) return;
      yield decodeEntry(result.data);
    }
  } finally {
    lines.close();
  }
}

function encodeEntry(outcome: BatchOutcome): z.infer<typeof entrySchema> {
  return {
    batch: outcome.batch,
    first_row: outcome.firstRow,
    last_row: outcome.lastRow,
    rows: outcome.rows,
    batch_id: outcome.batchId,
    posted: outcome.posted,
    created: outcome.created,
    duplicates: outcome.duplicates,
    failed: outcome.failed,
    errors: outcome.errors.map((e) => [e.row, e.field, e.code, e.message]),
  };
}

function decodeEntry(entry: z.infer<typeof entrySchema>): BatchOutcome {
  return {
    batch: entry.batch,
    firstRow: entry.first_row,
    lastRow: entry.last_row,
    rows: entry.rows,
    batchId: entry.batch_id,
    posted: entry.posted,
    created: entry.created,
    duplicates: entry.duplicates,
    failed: entry.failed,
    errors: entry.errors.map(([row, field, code, message]) => ({ row, field, code, message })),
  };
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * One upload of a file with a key at a time: two would send the same batches with the same keys
 * (harmless for the data, 409s for both) and append to one journal. A lock left by a killed run
 * (its pid is gone) is taken over. A holder gets a few seconds' grace: right after `kill -9` the
 * process may still be exiting, and the user's immediate retry should resume, not fail.
 */
async function takeLock(lockPath: string, file: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lockPath, String(process.pid), { flag: 'wx' });
      heldLocks.add(lockPath);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = Number(await readFile(lockPath, 'utf8').catch(() => ''));
    if (pid && pid !== process.pid) {
      const deadline = Date.now() + LOCK_GRACE_MS;
      while (isAlive(pid) && Date.now() < deadline) await sleep(100);
      if (isAlive(pid))
        throw new FatalError(`another upload of ${file} with this key is running (pid ${pid})`);
    }
    await rm(lockPath, { force: true });
  }
  throw new FatalError(`cannot take the checkpoint lock ${lockPath}`);
}

const LOCK_GRACE_MS = 3_000;

/** A process that exists and is not a zombie (killed, waiting to be reaped: as good as gone). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; Linux only, elsewhere the signal check decides.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'; // gone meanwhile, or no /proc here
  }
}

// Locks this process holds, released on any exit (process.exit after a fatal error or SIGINT).
const heldLocks = new Set<string>();
process.once('exit', () => heldLocks.forEach(rmLockSync));

function rmLockSync(lockPath: string): void {
  heldLocks.delete(lockPath);
  try {
    // Only our own lock: a later run may have taken over after we were presumed dead.
    if (readFileSync(lockPath, 'utf8') === String(process.pid)) rmSync(lockPath, { force: true });
  } catch {
    /* already gone */
  }
}
