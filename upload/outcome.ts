// The answer to one batch, as the uploader counts and reports it: per-listing results mapped back
// to the file's row numbers (results[].index → the row the listing came from), plus the rows the
// client could not send. A row fails once however many errors it has; every error is one report line.
import { z } from 'zod';
import type { Batch } from './batches.ts';
import { errorOf, type ApiAnswer } from './http/client.ts';
import { FatalError } from './fatal.ts';

export interface FailedField {
  row: number;
  field: string;
  code: string;
  message: string;
}

export interface BatchOutcome {
  batch: number;
  firstRow: number;
  lastRow: number;
  rows: number;
  /** The API's batch id, when the API answered with a batch (201, or 400 all_listings_failed). */
  batchId: string | null;
  /** Whether the batch was posted (false when none of its rows could be sent). */
  posted: boolean;
  created: number;
  duplicates: number;
  failed: number;
  errors: FailedField[];
}

// Only what the uploader reads; the API may add fields (it is versioned by path, not by shape).
const fieldError = z.object({ field: z.string(), code: z.string(), message: z.string() });
const bulkAnswer = z.object({
  batch_id: z.string(),
  results: z.array(
    z.object({
      index: z.number().int().nonnegative(),
      success: z.boolean(),
      status: z.string().optional(),
      errors: z.array(fieldError).optional(),
    }),
  ),
});

export function outcomeOf(batch: Batch, answer: ApiAnswer | undefined): BatchOutcome {
  const outcome: BatchOutcome = {
    batch: batch.number,
    firstRow: batch.firstRow,
    lastRow: batch.lastRow,
    rows: batch.rows.length,
    batchId: null,
    posted: answer !== undefined,
    created: 0,
    duplicates: 0,
    failed: 0,
    errors: [],
  };
  for (const row of batch.rows) {
    if (!row.problem) continue;
    outcome.failed++;
    outcome.errors.push({ row: row.row, field: '', ...row.problem });
  }
  if (answer) addAnswer(outcome, batch, answer);
  outcome.errors.sort((a, b) => a.row - b.row); // stable: a row's errors keep the server's order
  return outcome;
}

function addAnswer(outcome: BatchOutcome, batch: Batch, answer: ApiAnswer): void {
  const { code, message } = errorOf(answer);
  let body: unknown;
  if (answer.status === 201) body = answer.body;
  else if (answer.status === 400 && code === 'all_listings_failed') {
    body = (answer.body as { error?: { details?: unknown } }).error?.details;
  } else if (answer.status === 422 && code === 'idempotency_key_reused') {
    throw new FatalError(
      `batch ${batch.number}: the API already saw this batch's Idempotency-Key with other content — ` +
        'the file changed since the interrupted upload; delete its checkpoint to start over',
    );
  } else if (answer.status >= 400 && answer.status < 500) {
    // The API refused the request as a whole (e.g. 400 invalid_json for a `__proto__` key, 413):
    // every listing of the batch failed for that one reason.
    for (const row of batch.listingRows) outcome.errors.push({ row, field: '', code, message });
    outcome.failed += batch.listingRows.length;
    return;
  } else {
    throw new FatalError(
      `batch ${batch.number}: unexpected answer ${answer.status} from POST /listings/bulk`,
    );
  }
  const parsed = bulkAnswer.safeParse(body);
  if (!parsed.success || parsed.data.results.length !== batch.listingRows.length) {
    throw new FatalError(
      `batch ${batch.number}: the API's answer does not describe the ${batch.listingRows.length} listings sent`,
    );
  }
  outcome.batchId = parsed.data.batch_id;
  for (const result of parsed.data.results) {
    const row = batch.listingRows[result.index];
    if (row === undefined)
      throw new FatalError(`batch ${batch.number}: result index ${result.index} out of range`);
    if (!result.success) {
      outcome.failed++;
      const errors = result.errors?.length
        ? result.errors
        : [{ field: '', code: 'failed', message: 'the API refused the listing' }];
      for (const error of errors) outcome.errors.push({ row, ...error });
    } else if (result.status === 'duplicate') {
      outcome.duplicates++;
    } else {
      outcome.created++;
    }
  }
}
