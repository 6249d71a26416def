// POST /events/views as a service: validate each event, drop repeated client event ids (per
// account and mode, in Redis, one pipeline), publish the rest to rls.views.v1 in one send.
import type { Redis } from 'ioredis';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import type { ViewMessage } from '../../common/domain/messages.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import { newId } from '../../common/ids.ts';
import { isTestMode } from '../listings/bulk-create.ts';
import { CLOCK_SKEW_MS } from '../listings/validate.ts';
import { fieldErrors, type FieldError } from '../validation/field-errors.ts';
import {
  MAX_VIEW_EVENTS_PER_REQUEST,
  viewEventSchema,
  viewsBodySchema,
  type ViewsResponse,
} from './schemas.ts';

export const VIEW_MAX_AGE_MS = 365 * 24 * 3600_000;
export const VIEW_EVENT_ID_TTL_SECONDS = 7 * 24 * 3600;

export interface RecordViewsDeps {
  redis: Redis;
  prefix: string;
  publish(messages: ViewMessage[]): Promise<void>;
  now?: () => number;
}

export async function recordViews(
  deps: RecordViewsDeps,
  auth: ApiKeyRecord,
  body: unknown,
): Promise<ViewsResponse> {
  const envelope = parseEnvelope(body);
  const isTest = isTestMode(auth, envelope.test_mode);
  const now = deps.now?.() ?? Date.now();
  const receivedAt = new Date(now).toISOString();
  const rejected: ViewsResponse['rejected'] = [];
  const valid: { message: ViewMessage; clientId: boolean }[] = [];
  const seenInRequest = new Set<string>();
  let duplicates = 0;

  envelope.events.forEach((raw, index) => {
    const parsed = viewEventSchema.safeParse(raw);
    const errors: FieldError[] = parsed.success ? [] : fieldErrors(parsed.error.issues, raw);
    if (parsed.success && parsed.data.viewed_at !== undefined) {
      const at = Date.parse(parsed.data.viewed_at);
      if (at > now + CLOCK_SKEW_MS) {
        errors.push({
          field: 'viewed_at',
          code: 'in_future',
          message: 'viewed_at must not be in the future',
        });
      } else if (at < now - VIEW_MAX_AGE_MS) {
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
    valid.push({
      clientId: event.event_id !== undefined,
      message: {
        v: 1,
        event_id: event.event_id ?? newId(),
        listing_id: event.listing_id.toLowerCase(),
        account_id: auth.account_id,
        is_test: isTest,
        viewed_at: event.viewed_at ? new Date(event.viewed_at).toISOString() : receivedAt,
        received_at: receivedAt,
      },
    });
  });

  const dedupeKey = (eventId: string) =>
    `${deps.prefix}view:${auth.account_id}:${isTest ? 'test' : 'live'}:${eventId}`;
  const withClientIds = valid.filter((v) => v.clientId);
  let claimedKeys: string[] = [];
  let fresh = valid;
  if (withClientIds.length) {
    const pipeline = deps.redis.pipeline();
    for (const v of withClientIds)
      pipeline.set(dedupeKey(v.message.event_id), '1', 'EX', VIEW_EVENT_ID_TTL_SECONDS, 'NX');
    const replies = await pipeline.exec().catch((error: unknown) => {
      throw dependencyUnavailable('redis', error);
    });
    if (!replies) throw dependencyUnavailable('redis', new Error('pipeline aborted'));
    const repeated = new Set<ViewMessage>();
    withClientIds.forEach((v, i) => {
      const [error, reply] = replies[i]!;
      if (error) throw dependencyUnavailable('redis', error);
      if (reply === 'OK') claimedKeys.push(dedupeKey(v.message.event_id));
      else repeated.add(v.message);
    });
    duplicates += repeated.size;
    fresh = valid.filter((v) => !repeated.has(v.message));
  }
  if (fresh.length) {
    try {
      await deps.publish(fresh.map((v) => v.message));
    } catch (error) {
      // Un-claim so the client's retry of these event ids is not taken for a duplicate.
      if (claimedKeys.length) await deps.redis.del(...claimedKeys).catch(() => undefined);
      claimedKeys = [];
      throw dependencyUnavailable('kafka', error);
    }
  }
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
