// POST /events/views request and response (contract, "View events"), as zod schemas.
import { z } from 'zod';
import { text } from '../../common/domain/text.ts';
import { batchEnvelope } from '../validation/batch-envelope.ts';

export const viewEventSchema = z
  .strictObject({
    listing_id: text().check(z.uuid()),
    viewed_at: text()
      .check(z.iso.datetime({ offset: true }))
      .optional()
      .meta({ description: 'Default: time received. Not in the future, not older than 1 year' }),
    event_id: text()
      .regex(/^[\x21-\x7e]{1,128}$/)
      .optional()
      .meta({
        description:
          'Your id for the event; a repeated id (same listing and viewer, per account and mode, 24–48 h) is skipped',
      }),
    viewer_id: text()
      .regex(/^[\x21-\x7e]{1,128}$/)
      .optional()
      .meta({
        description:
          'Who viewed (your session or user id; default: the API key). At most 3 views of a listing per viewer and UTC day count',
      }),
  })
  .meta({ title: 'ViewEvent' });

/** POST /events/views: up to 1,000 events a request. */
export const viewsEnvelope = batchEnvelope({
  field: 'events',
  max: 1_000,
  tooManyCode: 'too_many_events',
  items: 'view events',
});

/**
 * An event as the OpenAPI document shows it: listing_id is required for the event to be accepted,
 * but an event without it is a per-event rejection in a 202 (contract, "View events"), not an
 * invalid request, so the document's schema lets it be absent (docs/decisions/0001-…).
 */
export const viewEventDocSchema = viewEventSchema
  .extend({
    listing_id: text()
      .check(z.uuid())
      .optional()
      .meta({
        description:
          'Required for the event to be accepted: an event without it is listed in rejected (field ' +
          'listing_id, code required) and the request still answers 202 with the other events',
      }),
  })
  .meta({ title: 'ViewEvent' });

export const viewsBodyDocSchema = viewsEnvelope
  .docSchema(viewEventDocSchema)
  .meta({ title: 'ViewEventsRequest' });

export const viewsResponseSchema = z
  .object({
    accepted: z.number().int().meta({ description: 'New events published' }),
    duplicates: z.number().int().meta({ description: 'Events whose event_id was already accepted' }),
    rejected: z.array(
      z.object({
        index: z.number().int(),
        errors: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })),
      }),
    ),
    test_mode: z.boolean(),
  })
  .meta({ title: 'ViewEventsResponse' });

export type ViewsResponse = z.infer<typeof viewsResponseSchema>;
