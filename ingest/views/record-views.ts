// POST /events/views as a service: validate each event, keep only views of the caller's own
// listings (unless the key has the portal role), drop repeated client event ids, cap views per
// listing, viewer and day, count them against the account's daily quota, and publish the rest to
// rls.views.v1 in one send (docs/ingest.md, "View events").
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { dailyQuota } from '../../common/auth/tiers.ts';
import type { ViewMessage } from '../../common/domain/messages.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import { newId } from '../../common/ids.ts';
import { isTestMode } from '../listings/bulk-create.ts';
import { CLOCK_SKEW_MS } from '../listings/validate.ts';
import { fieldErrors, type FieldError } from '../validation/field-errors.ts';
import type { ListingOwnership } from './ownership.ts';
import {
  MAX_VIEW_EVENTS_PER_REQUEST,
  viewEventSchema,
  viewsBodySchema,
  type ViewsResponse,
} from './schemas.ts';
import { VIEWS_PER_VIEWER_DAY, viewerOf, type GuardedEvent, type ViewGuard } from './view-guard.ts';

export const VIEW_MAX_AGE_MS = 365 * 24 * 3600_000;

export interface RecordViewsDeps {
  guard: ViewGuard;
  ownership: ListingOwnership;
  publish(messages: ViewMessage[]): Promise<void>;
  now?: () => number;
}

interface Candidate {
  index: number;
  message: ViewMessage;
  guarded: GuardedEvent;
}

export async function recordViews(
  deps: RecordViewsDeps,
  auth: ApiKeyRecord,
  body: unknown,
): Promise<ViewsResponse> {
  const envelope = parseEnvelope(body);
  const isTest = isTestMode(auth, envelope.test_mode);
  const now = deps.now?.() ?? Date.now();
  const at = new Date(now);
  const receivedAt = at.toISOString();
  const rejected: ViewsResponse['rejected'] = [];
  let candidates: Candidate[] = [];
  const seenInRequest = new Set<string>();
  let duplicates = 0;

  envelope.events.forEach((raw, index) => {
    const parsed = viewEventSchema.safeParse(raw);
    const errors: FieldError[] = parsed.success ? [] : fieldErrors(parsed.error.issues, raw);
    if (parsed.success && parsed.data.viewed_at !== undefined) {
      const viewedAt = Date.parse(parsed.data.viewed_at);
      if (viewedAt > now + CLOCK_SKEW_MS) {
        errors.push({
          field: 'viewed_at',
          code: 'in_future',
          message: 'viewed_at must not be in the future',
        });
      } else if (viewedAt < now - VIEW_MAX_AGE_MS) {
        errors.push({
          field: 'viewed_at',
          code: 'too_old',
          message: 'viewed_at must be within the last year',
        });
      }
    }
    if (!parsed.success || errors.length) {
      rejected.push({ index, errors });
      return;
    }
    const event = parsed.data;
    if (event.event_id !== undefined) {
      if (seenInRequest.has(event.event_id)) {
        duplicates++;
        return;
      }
      seenInRequest.add(event.event_id);
    }
    const viewedAt = event.viewed_at ? new Date(event.viewed_at).toISOString() : receivedAt;
    const listingId = event.listing_id.toLowerCase();
    candidates.push({
      index,
      message: {
        v: 1,
        event_id: event.event_id ?? newId(),
        listing_id: listingId,
        account_id: auth.account_id,
        is_test: isTest,
        viewed_at: viewedAt,
        received_at: receivedAt,
      },
      guarded: {
        clientEventId: event.event_id,
        listingId,
        viewer: viewerOf(event.viewer_id, auth.id),
        viewedDay: viewedAt.slice(0, 10),
      },
    });
  });

  // Only the portal (the marketplace's own front end) may report views of any account's listings.
  if (auth.role !== 'portal' && candidates.length) {
    const owned = await deps.ownership.ownedBy(
      candidates.map((c) => c.guarded.listingId),
      auth.account_id,
      isTest,
    );
    candidates = candidates.filter((c) => {
      if (owned.has(c.guarded.listingId)) return true;
      rejected.push({
        index: c.index,
        errors: [
          {
            field: 'listing_id',
            code: 'not_found',
            message: `No ${isTest ? 'test' : 'live'} listing ${c.guarded.listingId} of this account`,
          },
        ],
      });
      return false;
    });
  }

  const owner = { accountId: auth.account_id, mode: isTest ? 'test' : 'live' } as const;
  const limit = dailyQuota(auth, 'viewEventsPerDay');
  const statuses = await deps.guard
    .admit(
      owner,
      candidates.map((c) => c.guarded),
      limit,
      at,
    )
    .catch((error: unknown) => {
      throw error instanceof AppError ? error : dependencyUnavailable('redis', error);
    });
  const fresh: Candidate[] = [];
  candidates.forEach((c, i) => {
    const status = statuses[i];
    if (status === 'duplicate') duplicates++;
    else if (status === 'capped') {
      rejected.push({
        index: c.index,
        errors: [
          {
            field: 'listing_id',
            code: 'view_cap_reached',
            message: `At most ${VIEWS_PER_VIEWER_DAY} views of a listing per viewer and UTC day count; this viewer has them`,
          },
        ],
      });
    } else fresh.push(c);
  });
  if (fresh.length) {
    try {
      await deps.publish(fresh.map((c) => c.message));
    } catch (error) {
      // Forget them again, so the client's retry of these event ids is not taken for duplicates.
      await deps.guard
        .release(
          owner,
          fresh.map((c) => c.guarded),
          limit,
          at,
        )
        .catch(() => undefined);
      throw dependencyUnavailable('kafka', error);
    }
  }
  rejected.sort((a, b) => a.index - b.index);
  return { accepted: fresh.length, duplicates, rejected, test_mode: isTest };
}

function parseEnvelope(body: unknown): { events: unknown[]; test_mode?: boolean } {
  if (body && typeof body === 'object' && Array.isArray((body as { events?: unknown }).events)) {
    const count = (body as { events: unknown[] }).events.length;
    if (count > MAX_VIEW_EVENTS_PER_REQUEST) {
      throw new AppError(
        'too_many_events',
        `A request may hold at most ${MAX_VIEW_EVENTS_PER_REQUEST} view events; got ${count}. Split them into several requests.`,
        { details: { max: MAX_VIEW_EVENTS_PER_REQUEST, got: count } },
      );
    }
  }
  const parsed = viewsBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new AppError(
      'validation_failed',
      'The body must be {"events": [1 to 1000 view events], "test_mode"?: boolean}',
      { details: fieldErrors(parsed.error.issues, body) },
    );
  }
  return parsed.data;
}
