// --wait: after every batch is sent, poll GET /listings/batches/{id} until each batch that created
// listings is `completed` (every created listing stored and visible to analytics, CONTRACT.md
// "Batches"). Batches that created nothing complete at once and are not polled. Batches tend to
// complete in the order they were sent, so polling them in order costs about one request each
// beyond the slowest. Bounded by a deadline: a stalled pipeline ends in a fatal error, and running
// the same command again resumes the wait (the checkpoint is kept until the end).
import { FatalError } from './fatal.ts';
import type { ApiClient } from './http/client.ts';
import { errorOf } from './http/client.ts';
import { sleep } from './http/rate-gate.ts';
import type { Progress } from './progress.ts';

export interface WaitOptions {
  concurrency: number;
  timeoutMs: number;
  signal: AbortSignal;
  progress: Progress;
}

export async function waitForBatches(
  client: ApiClient,
  batchIds: string[],
  options: WaitOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let next = 0;
  let completed = 0;
  options.progress.waiting(0, batchIds.length);

  const untilCompleted = async (batchId: string): Promise<void> => {
    for (let delay = 250; ; delay = Math.min(delay * 2, 2_000)) {
      const answer = await client.request('GET', `/listings/batches/${encodeURIComponent(batchId)}`);
      if (answer.status === 404) {
        options.progress.note(
          `batch ${batchId} is unknown to the API (batch records last 7 days); not waiting for it`,
        );
        return;
      }
      if (answer.status !== 200) {
        const { code, message } = errorOf(answer);
        throw new FatalError(`waiting for batch ${batchId}: ${answer.status} ${code}: ${message}`);
      }
      if ((answer.body as { status?: unknown }).status === 'completed') return;
      if (Date.now() + delay > deadline) {
        throw new FatalError(
          `gave up waiting after ${Math.round(options.timeoutMs / 1000)} s: ${batchIds.length - completed} of ` +
            `${batchIds.length} batches are still processing (e.g. ${batchId}); run the same command again to keep waiting`,
        );
      }
      await sleep(delay, options.signal);
    }
  };

  const worker = async (): Promise<void> => {
    while (next < batchIds.length) {
      const batchId = batchIds[next++]!;
      await untilCompleted(batchId);
      options.progress.waiting(++completed, batchIds.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, batchIds.length) }, worker));
}
