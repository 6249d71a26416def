// POST /events/views as a service: validate each event, keep only views of the caller's own
// listings (unless the key has the portal role), drop repeated client event ids, cap views per
// listing, viewer and day, count them against the account's daily quota, and publish the rest to
// rls.views.v1 in one send (docs/ingest.md, "View events").
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { dailyQuota } from '../../common/auth/tiers.ts';
import type { ViewMessage } from '../../common/domain/messages.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import { newId } from '../../common/ids.ts';
import { errorFields, type Logger } from '../../common/logger.ts';
import { isTestMode } from '../listings/bulk-create.ts';
import { CLOCK_SKEW_MS } from '../listings/validate.ts';
import { fieldErrors, type FieldError } from '../validation/field-errors.ts';
import type { ListingOwnership } from './ownership.ts';
import { viewEventSchema, viewsEnvelope, type ViewsResponse } from './schemas.ts';
import { VIEWS_PER_VIEWER_DAY, viewerOf, type GuardedEvent, type ViewGuard } from './view-guard.ts';

export const VIEW_MAX_AGE_MS = 365 * 24 * 3600_000;

export interface RecordViewsDeps {
  guard: ViewGuard;
  ownership: ListingOwnership;
  publish(messages: ViewMessage[]): Promise<void>;
  logger: Logger;
  now?: () => number;
}

interface Candidate {
  index: number;
  message: ViewMessage;
  guarded: GuardedEvent;
}

/** One request as its steps share it: what is still a candidate, and what was set aside so far. */
interface ViewsRequest {
  auth: ApiKeyRecord;
  isTest: boolean;
  now: number;
  candidates: Candidate[];
  rejected: ViewsResponse['rejected'];
  duplicates: number;
}

export async function recordViews(
  deps: RecordViewsDeps,
  auth: ApiKeyRecord,
  body: unknown,
): Promise<ViewsResponse> {
  const envelope = viewsEnvelope.parse(body);
  const isTest = isTestMode(auth, envelope.test_mode);
  const request = validateEvents(envelope.events, { auth, isTest, now: deps.now?.() ?? Date.now() });
  // Only the portal (the marketplace's own front end) may report views of any account's listings.
  if (auth.role !== 'portal' && request.candidates.length) await keepOwned(deps, request);
  const admitted = await admit(deps, request);
  if (admitted.length) await publishOrRelease(deps, request, admitted);
  request.rejected.sort((a, b) => a.index - b.index);
  return {
    accepted: admitted.length,
    duplicates: request.duplicates,
    rejected: request.rejected,
    test_mode: isTest,
  };
}

/** Each event checked and turned into its message; repeated client event ids count as duplicates. */
function validateEvents(
  events: unknown[],
  base: Pick<ViewsRequest, 'auth' | 'isTest' | 'now'>,
): ViewsRequest {
  const request: ViewsRequest = { ...base, candidates: [], rejected: [], duplicates: 0 };
  const receivedAt = new Date(base.now).toISOString();
  const seenInRequest = new Set<string>();
  events.forEach((raw, index) => {
    const parsed = viewEventSchema.safeParse(raw);
    const errors: FieldError[] = parsed.success
      ? viewedAtErrors(parsed.data.viewed_at, base.now)
      : fieldErrors(parsed.error.issues, raw);
    if (!parsed.success || errors.length) {
      request.rejected.push({ index, errors });
      return;
    }
    const event = parsed.data;
    if (event.event_id !== undefined) {
      if (seenInRequest.has(event.event_id)) {
        request.duplicates++;
        return;
      }
      seenInRequest.add(event.event_id);
    }
    const viewedAt = event.viewed_at ? new Date(event.viewed_at).toISOString() : receivedAt;
    const listingId = event.listing_id.toLowerCase();
    request.candidates.push({
      index,
      message: {
        v: 1,
        event_id: event.event_id ?? newId(),
        listing_id: listingId,
        account_id: base.auth.account_id,
        is_test: base.isTest,
        viewed_at: viewedAt,
        received_at: receivedAt,
      },
      guarded: {
        clientEventId: event.event_id,
        listingId,
        viewer: viewerOf(event.viewer_id, base.auth.id),
        viewedDay: viewedAt.slice(0, 10),
      },
    });
  });
  return request;
}

function viewedAtErrors(viewedAt: string | undefined, now: number): FieldError[] {
  if (viewedAt === undefined) return [];
  const at = Date.parse(viewedAt);
  if (at > now + CLOCK_SKEW_MS) {
    return [{ field: 'viewed_at', code: 'in_future', message: 'viewed_at must not be in the future' }];
  }
  if (at < now - VIEW_MAX_AGE_MS) {
    return [{ field: 'viewed_at', code: 'too_old', message: 'viewed_at must be within the last year' }];
  }
  return [];
}

/** Views of listings that are not the caller's (in this mode) are rejected as not found. */
async function keepOwned(deps: RecordViewsDeps, request: ViewsRequest): Promise<void> {
  const { auth, isTest } = request;
  const owned = await deps.ownership.ownedBy(
    request.candidates.map((c) => c.guarded.listingId),
    auth.account_id,
    isTest,
  );
  request.candidates = request.candidates.filter((c) => {
    if (owned.has(c.guarded.listingId)) return true;
    const message = `No ${isTest ? 'test' : 'live'} listing ${c.guarded.listingId} of this account`;
    request.rejected.push({ index: c.index, errors: [{ field: 'listing_id', code: 'not_found', message }] });
    return false;
  });
}

const ownerOf = (request: ViewsRequest) =>
  ({ accountId: request.auth.account_id, mode: request.isTest ? 'test' : 'live' }) as const;

/**
 * Drops event ids already recorded and views past the per-viewer cap, counting the rest against the
 * daily quota (view-guard.ts, one Redis call); returns the views to publish.
 */
async function admit(deps: RecordViewsDeps, request: ViewsRequest): Promise<Candidate[]> {
  const statuses = await deps.guard
    .admit(
      ownerOf(request),
      request.candidates.map((c) => c.guarded),
      dailyQuota(request.auth, 'viewEventsPerDay'),
      new Date(request.now),
    )
    .catch((error: unknown) => {
      throw error instanceof AppError ? error : dependencyUnavailable('redis', error);
    });
  return request.candidates.filter((c, i) => {
    const status = statuses[i];
    if (status === 'duplicate') request.duplicates++;
    else if (status === 'capped') {
      const message = `At most ${VIEWS_PER_VIEWER_DAY} views of a listing per viewer and UTC day count; this viewer has them`;
      request.rejected.push({
        index: c.index,
        errors: [{ field: 'listing_id', code: 'view_cap_reached', message }],
      });
    }
    return status !== 'duplicate' && status !== 'capped';
  });
}

async function publishOrRelease(deps: RecordViewsDeps, request: ViewsRequest, admitted: Candidate[]) {
  try {
    await deps.publish(admitted.map((c) => c.message));
  } catch (error) {
    // Forget them again, so the client's retry of these event ids is not taken for duplicates. If
    // that fails too, the retry is answered "duplicate" for events never stored: log which.
    await deps.guard
      .release(
        ownerOf(request),
        admitted.map((c) => c.guarded),
        dailyQuota(request.auth, 'viewEventsPerDay'),
        new Date(request.now),
      )
      .catch((releaseError: unknown) =>
        deps.logger.error('view event claims not released after a failed publish', {
          account_id: request.auth.account_id,
          event_ids: admitted.map((c) => c.message.event_id),
          ...errorFields(releaseError),
        }),
      );
    throw dependencyUnavailable('kafka', error);
  }
}
