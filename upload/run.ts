// One upload, start to finish: open the file (format errors surface before anything is sent),
// check the key, open or resume the checkpoint, replay what a previous run recorded, then stream
// batches to POST /listings/bulk with a bounded number in flight, recording each in file order.
//
// Recording in order (a batch is recorded only after every batch before it) keeps the checkpoint
// a simple prefix "batches 1…N are done" and the report in row order; memory stays bounded by the
// number in flight. A batch answered out of order just waits in the queue; if the run dies first,
// it is resent with the same Idempotency-Key and the API replays the same answer.
import { stat } from 'node:fs/promises';
import { batchesOf, type Batch } from './batches.ts';
import { openCheckpoint, type Checkpoint } from './checkpoint.ts';
import type { UploadConfig } from './config.ts';
import { FatalError } from './fatal.ts';
import { createApiClient, errorOf, type ApiAnswer, type ApiClient } from './http/client.ts';
import { RateGate } from './http/rate-gate.ts';
import { outcomeOf, type BatchOutcome } from './outcome.ts';
import type { Progress } from './progress.ts';
import { ReportWriter } from './report.ts';
import { openSource } from './source/open.ts';
import { waitForBatches } from './wait.ts';

/** The last stdout line (CONTRACT.md "Uploader CLI"), exactly these keys. */
export interface UploadSummary {
  rows: number;
  created: number;
  duplicates: number;
  failed: number;
  batches: number;
  report: string;
}

interface Totals {
  rows: number;
  created: number;
  duplicates: number;
  failed: number;
  batches: number;
  bytes: number;
}

export async function upload(
  config: UploadConfig,
  io: { progress: Progress; signal: AbortSignal },
): Promise<UploadSummary> {
  const { progress } = io;
  const source = await openSource(config.file, config.format, (message) => progress.note(message));
  // The same file whatever the path says (symlink, hard link): same device and inode.
  const input = await stat(source.path);
  const existing = await stat(config.reportPath).catch(() => undefined);
  if (existing && existing.dev === input.dev && existing.ino === input.ino) {
    throw new FatalError(`--report ${config.reportPath} is the input file itself; choose another path`, 2);
  }

  // Aborted by SIGINT (io.signal) or by a fatal error, so no request or wait outlives the run.
  const controller = new AbortController();
  const onInterrupt = () => controller.abort(io.signal.reason);
  io.signal.addEventListener('abort', onInterrupt, { once: true });
  let waitNotedUntil = 0;
  const client = createApiClient({
    baseUrl: config.apiUrl,
    apiKey: config.apiKey,
    gate: new RateGate(),
    signal: controller.signal,
    onWait(reason, ms) {
      // Concurrent batches hit the same limit at once: tell the user once per wait.
      if (Date.now() + ms <= waitNotedUntil + 1_000) return;
      waitNotedUntil = Date.now() + ms;
      progress.note(`${reason}: waiting ${Math.ceil(ms / 1000)} s`);
    },
  });

  let checkpoint: Checkpoint | undefined;
  let report: ReportWriter | undefined;
  try {
    const keyId = await checkKey(client);
    checkpoint = await openCheckpoint(config.stateDir, {
      file: source.path,
      size: source.size,
      mtime_ms: source.mtimeMs,
      format: source.format,
      api_url: config.apiUrl,
      key_id: keyId,
    });
    report = new ReportWriter(config.reportPath, input);
    const totals: Totals = { rows: 0, created: 0, duplicates: 0, failed: 0, batches: 0, bytes: 0 };
    for await (const entry of checkpoint.entries()) {
      add(totals, entry);
      report.add(entry.errors);
    }
    if (checkpoint.done) {
      progress.note(
        `resuming: batches 1–${checkpoint.done} (${totals.rows} rows) were uploaded before; ` +
          `sending the rest (checkpoint ${checkpoint.path})`,
      );
    }

    await send(config, { client, checkpoint, report, totals, progress, source, signal: controller.signal });
    progress.end();

    if (config.wait) {
      const ids: string[] = [];
      for await (const entry of checkpoint.entries())
        if (entry.created > 0 && entry.batchId) ids.push(entry.batchId);
      await waitForBatches(client, ids, {
        concurrency: config.concurrency,
        timeoutMs: config.waitTimeoutMs,
        signal: controller.signal,
        progress,
      });
      progress.end();
    }

    report.close();
    report = undefined;
    await checkpoint.remove();
    return {
      rows: totals.rows,
      created: totals.created,
      duplicates: totals.duplicates,
      failed: totals.failed,
      batches: totals.batches,
      report: config.reportPath,
    };
  } catch (error) {
    controller.abort(error);
    throw error;
  } finally {
    io.signal.removeEventListener('abort', onInterrupt);
    report?.close();
    checkpoint?.close();
    checkpoint?.releaseLock();
    await source.rows.return(undefined);
  }
}

/** GET /listings/bulk: a bad key fails here, before the file is read further; its id keys the checkpoint. */
async function checkKey(client: ApiClient): Promise<string> {
  const answer = await client.request('GET', '/listings/bulk');
  const id = (answer.body as { key?: { id?: unknown } } | undefined)?.key?.id;
  if (answer.status === 200 && typeof id === 'string') return id;
  const { code, message } = errorOf(answer);
  throw new FatalError(
    `checking the key at ${client.baseUrl}/listings/bulk: ${answer.status} ${code}: ${message}`,
  );
}

interface SendContext {
  client: ApiClient;
  checkpoint: Checkpoint;
  report: ReportWriter;
  totals: Totals;
  progress: Progress;
  source: Awaited<ReturnType<typeof openSource>>;
  signal: AbortSignal;
}

async function send(config: UploadConfig, ctx: SendContext): Promise<void> {
  const { checkpoint, totals, progress } = ctx;
  const queue: { batch: Batch; answer: Promise<ApiAnswer | undefined> }[] = [];
  let recordedThisRun = 0;
  let begun = false;
  let lastNumber = 0;

  const settle = async (): Promise<void> => {
    const { batch, answer } = queue.shift()!;
    const response = await answer;
    if (config.killAfterBatches !== undefined && recordedThisRun === config.killAfterBatches) {
      // Test hook (README): die the hardest way with this batch answered but not recorded.
      process.kill(process.pid, 'SIGKILL');
    }
    const outcome = outcomeOf(batch, response);
    checkpoint.record(outcome);
    ctx.report.add(outcome.errors);
    add(totals, outcome, batch.offset);
    recordedThisRun++;
    progress.update(totals);
  };

  for await (const batch of batchesOf(ctx.source.rows)) {
    lastNumber = batch.number;
    if (batch.number <= checkpoint.done) {
      if (batch.number === checkpoint.done) {
        assertSameSplit(batch, checkpoint.last!);
        totals.bytes = batch.offset;
      }
      continue;
    }
    if (!begun) {
      begun = true;
      progress.begin(ctx.source.size, { ...totals });
    }
    const answer =
      batch.body === undefined
        ? Promise.resolve(undefined)
        : ctx.client.request('POST', '/listings/bulk', {
            body: batch.body,
            idempotencyKey: checkpoint.idempotencyKey(batch.number),
          });
    answer.catch(() => undefined); // awaited in order by settle(); not an unhandled rejection meanwhile
    queue.push({ batch, answer });
    if (queue.length >= config.concurrency) await settle();
  }
  while (queue.length) await settle();
  if (lastNumber < checkpoint.done) {
    throw new FatalError(
      `the file now splits into ${lastNumber} batches, but ${checkpoint.done} were recorded before; ` +
        `it changed since the interrupted upload — delete ${checkpoint.path} to start over`,
    );
  }
}

/** Batch N must cover the same rows as in the interrupted run, or resuming would skip other rows. */
function assertSameSplit(batch: Batch, recorded: BatchOutcome): void {
  if (
    batch.firstRow !== recorded.firstRow ||
    batch.lastRow !== recorded.lastRow ||
    batch.rows.length !== recorded.rows
  ) {
    throw new FatalError(
      `batch ${batch.number} no longer covers rows ${recorded.firstRow}–${recorded.lastRow}: the file changed ` +
        'since the interrupted upload; delete its checkpoint to start over',
    );
  }
}

function add(totals: Totals, outcome: BatchOutcome, bytes?: number): void {
  totals.rows += outcome.rows;
  totals.created += outcome.created;
  totals.duplicates += outcome.duplicates;
  totals.failed += outcome.failed;
  if (outcome.posted) totals.batches++;
  if (bytes !== undefined) totals.bytes = bytes;
}
