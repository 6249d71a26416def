// OpenAPI parameters that several ingest operations read the same way.
import { z } from 'zod';

/** The header idempotency.ts honours on the write endpoints that accept it. */
export const idempotencyKeyParam = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  description: 'Optional. Replays the first response for 24 h (header Idempotency-Replayed: true)',
  schema: z.string().min(1).max(255),
};
