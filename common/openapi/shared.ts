// Schemas every API shares in its OpenAPI paths.
import { z } from 'zod';

/** The one error shape of every non-2xx response (common/http/errors.ts). */
export const errorResponseSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable machine-readable code' }),
      message: z.string(),
      request_id: z.string().meta({ description: 'Also in the X-Request-Id header; quote it to support' }),
      retriable: z.boolean(),
      details: z.unknown().optional(),
    }),
  })
  .meta({ title: 'Error' });
