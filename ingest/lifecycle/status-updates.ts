// POST /listings/status as a service (docs/lifecycle.md): validate each update, resolve its listing
// (by id, or by external_id → the same deterministic id bulk create gave it), check it against the
// listing's stored state, and publish the accepted ones to rls.listing-status.v1 in one message.
// The stream applies them in order per account; GET /listings/{id} shows the result once stored.
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { dailyQuota } from '../../common/auth/tiers.ts';
import type { StatusItem, StatusMessage } from '../../common/domain/lifecycle.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import type { ListingState } from '../../common/lifecycle/states.ts';
import { isTestMode } from '../listings/bulk-create.ts';
import { externalIdFingerprint, listingIdFor } from '../listings/fingerprint.ts';
import { CLOCK_SKEW_MS } from '../listings/validate.ts';
import type { FieldError } from '../validation/field-errors.ts';
import { checkBatchItem } from '../validation/batch-item.ts';
import {
  statusEnvelope,
  statusUpdateSchema,
  type StatusResponse,
  type StatusResult,
  type StatusUpdate,
} from './schemas.ts';
import { STATUS_CHANGES_PER_LISTING_DAY, type StatusQuota } from './status-quota.ts';

export interface StatusUpdateDeps {
  /** Stored states by listing id (any account; the service checks the owner). */
  readStates(ids: string[]): Promise<Map<string, ListingState>>;
  /** Publishes one status message (key: the account); rejects when Kafka is unavailable. */
  publish(message: StatusMessage & { items: StatusItem[] }): Promise<void>;
  /** The account's daily quota and the per-listing cap (status-quota.ts). */
  quota: StatusQuota;
  now?: () => number;
}

export interface StatusOutcome {
  status: 200 | 400;
  response: StatusResponse;
}

/** ClickHouse stores whole seconds: checks compare what will be stored. */
const seconds = (ms: number) => Math.floor(ms / 1000) * 1000;

/** The request's caller, mode and clock: what every step checks against. */
interface Caller {
  auth: ApiKeyRecord;
  isTest: boolean;
  now: number;
}

/** An update that passed validation, with the listing it addresses. */
interface Resolved {
  index: number;
  listingId: string;
  update: StatusUpdate;
}

/** An update its listing's stored state allows, as it will be published. */
interface Allowed extends Resolved {
  item: StatusItem;
}

export async function updateStatuses(
  deps: StatusUpdateDeps,
  auth: ApiKeyRecord,
  body: unknown,
): Promise<StatusOutcome> {
  const envelope = statusEnvelope.parse(body);
  const caller: Caller = {
    auth,
    isTest: isTestMode(auth, envelope.test_mode),
    now: deps.now?.() ?? Date.now(),
  };
  const results: StatusResult[] = [];
  const valid = resolveUpdates(envelope.updates, caller, results);
  const states = await readStatesOf(deps, valid);
  const allowed = checkAgainstStates(valid, states, caller, results);
  const admitted = await admitWithinQuota(deps, caller, allowed, results);
  if (admitted.length) await publishAdmitted(deps, caller, admitted);
  const succeeded = admitted.length;
  return {
    status: succeeded > 0 ? 200 : 400,
    response: { summary: { total: results.length, succeeded, failed: results.length - succeeded }, results },
  };
}

/** Validates each update (its failures go to `results`) and names the listing of each valid one. */
function resolveUpdates(
  updates: unknown[],
  { auth, isTest, now }: Caller,
  results: StatusResult[],
): Resolved[] {
  const valid: Resolved[] = [];
  updates.forEach((raw, index) => {
    const checked = validateUpdate(raw, now);
    if (!checked.ok) results[index] = { index, success: false, errors: checked.errors };
    else {
      const { update } = checked;
      const listingId =
        update.listing_id?.toLowerCase() ??
        listingIdFor(auth.account_id, isTest ? 'test' : 'live', externalIdFingerprint(update.external_id!));
      valid.push({ index, listingId, update });
    }
  });
  return valid;
}

async function readStatesOf(deps: StatusUpdateDeps, valid: Resolved[]): Promise<Map<string, ListingState>> {
  if (!valid.length) return new Map<string, ListingState>();
  return deps.readStates(valid.map((v) => v.listingId)).catch((error: unknown) => {
    throw dependencyUnavailable('clickhouse', error);
  });
}

/**
 * Checks each valid update against its listing's stored state (owner, mode, the times of its listing
 * and last change); records every outcome in `results` and returns the allowed updates.
 */
function checkAgainstStates(
  valid: Resolved[],
  states: Map<string, ListingState>,
  { auth, isTest, now }: Caller,
  results: StatusResult[],
): Allowed[] {
  // Several updates of one listing in a request apply in order, each on top of the one before.
  const working = new Map<string, { listed_at: number; status_at: number }>();
  const allowed: Allowed[] = [];
  for (const resolved of valid) {
    const { index, listingId, update } = resolved;
    const state = states.get(listingId);
    const field = update.listing_id !== undefined ? 'listing_id' : 'external_id';
    // Another account's listing, or the other mode's, is indistinguishable from none at all.
    if (!state || state.account_id !== auth.account_id || state.is_test !== isTest) {
      results[index] = fail(
        index,
        field,
        'not_found',
        `No listing ${update[field]} in this account (${isTest ? 'test' : 'live'} mode)`,
      );
      continue;
    }
    const known = working.get(listingId) ?? state;
    const at = seconds(update.at !== undefined ? Date.parse(update.at) : now);
    const refusal = timeRefusal(index, at, known);
    if (refusal) {
      results[index] = refusal;
      continue;
    }
    working.set(listingId, { listed_at: known.listed_at, status_at: at });
    const item: StatusItem = {
      listing_id: listingId,
      status: update.status,
      at: iso(at),
      ...(update.rent_agreed !== undefined
        ? { rent_agreed: update.rent_agreed, currency: update.currency ?? 'TZS' }
        : {}),
    };
    allowed.push({ ...resolved, item });
    results[index] = { index, success: true, listing_id: listingId, status: update.status };
  }
  return allowed;
}

/**
 * Counts the allowed updates against the per-listing cap (one over it fails on its own with
 * status_cap_reached) and the account's daily quota (429 for the whole request when they do not
 * fit); returns the admitted ones.
 */
async function admitWithinQuota(
  deps: StatusUpdateDeps,
  { auth, isTest, now }: Caller,
  allowed: Allowed[],
  results: StatusResult[],
): Promise<Allowed[]> {
  if (!allowed.length) return [];
  const owner = { accountId: auth.account_id, mode: isTest ? 'test' : 'live' } as const;
  const limit = dailyQuota(auth, 'statusUpdatesPerDay');
  const marks = await deps.quota
    .admit(
      owner,
      allowed.map((a) => a.listingId),
      limit,
      new Date(now),
    )
    .catch((error: unknown) => {
      throw error instanceof AppError ? error : dependencyUnavailable('redis', error);
    });
  return allowed.filter(({ index, update }, i) => {
    if (marks[i]) return true;
    const field = update.listing_id !== undefined ? 'listing_id' : 'external_id';
    results[index] = fail(
      index,
      field,
      'status_cap_reached',
      `Listing ${update[field]} already has ${STATUS_CHANGES_PER_LISTING_DAY} status changes today ` +
        '(UTC); more are refused until 00:00 UTC',
    );
    return false;
  });
}

/** Publishes the admitted updates; when that fails, their quota is given back before the 503. */
async function publishAdmitted(deps: StatusUpdateDeps, caller: Caller, admitted: Allowed[]) {
  try {
    await publishItems(
      deps,
      caller,
      admitted.map((a) => a.item),
    );
  } catch (error) {
    const owner = { accountId: caller.auth.account_id, mode: caller.isTest ? 'test' : 'live' } as const;
    await deps.quota
      .giveBack(
        owner,
        admitted.map((a) => a.listingId),
        new Date(caller.now),
      )
      .catch(() => undefined); // the publish failure is the answer; a count kept is only conservative
    throw error;
  }
}

/** A change may not predate the listing, nor its last status change. */
function timeRefusal(
  index: number,
  at: number,
  known: { listed_at: number; status_at: number },
): StatusResult | undefined {
  if (at < known.listed_at) {
    return fail(index, 'at', 'before_listed_at', `at must not be before listed_at (${iso(known.listed_at)})`);
  }
  if (at < known.status_at) {
    return fail(
      index,
      'at',
      'before_last_change',
      `at must not be before the listing's last status change (${iso(known.status_at)})`,
    );
  }
  return undefined;
}

async function publishItems(deps: StatusUpdateDeps, { auth, isTest, now }: Caller, items: StatusItem[]) {
  await deps
    .publish({
      v: 1,
      kind: 'status',
      source: 'api',
      account_id: auth.account_id,
      is_test: isTest,
      received_at: new Date(now).toISOString(),
      items,
    })
    .catch((error: unknown) => {
      throw dependencyUnavailable('kafka', error);
    });
}

const iso = (ms: number) => new Date(ms).toISOString();

function fail(index: number, field: string, code: string, message: string): StatusResult {
  return { index, success: false, errors: [{ field, code, message }] };
}

type Checked = { ok: true; update: StatusUpdate } | { ok: false; errors: FieldError[] };

/** The schema plus the rules between fields; every rule runs, so all errors come at once. */
function validateUpdate(raw: unknown, now: number): Checked {
  const item = checkBatchItem(raw, statusUpdateSchema, 'update');
  if (!item.object) return { ok: false, errors: item.errors };
  const { parsed, errors, raw: r } = item;
  if (r.listing_id === undefined && r.external_id === undefined) {
    errors.push({ field: 'listing_id', code: 'required', message: 'listing_id or external_id is required' });
  } else if (r.listing_id !== undefined && r.external_id !== undefined) {
    errors.push({
      field: 'external_id',
      code: 'conflicting_fields',
      message: 'Give listing_id or external_id, not both',
    });
  }
  if (r.status !== 'rented' && r.rent_agreed !== undefined) {
    errors.push({
      field: 'rent_agreed',
      code: 'not_allowed',
      message: 'rent_agreed is for status rented only',
    });
  }
  if (r.currency !== undefined && r.rent_agreed === undefined) {
    errors.push({
      field: 'currency',
      code: 'not_allowed',
      message: 'currency is the currency of rent_agreed',
    });
  }
  if (typeof r.at === 'string' && Date.parse(r.at) > now + CLOCK_SKEW_MS) {
    errors.push({ field: 'at', code: 'in_future', message: 'at must not be in the future' });
  }
  if (!parsed.success || errors.length) return { ok: false, errors };
  return { ok: true, update: parsed.data };
}
