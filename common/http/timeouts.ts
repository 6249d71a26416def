// How long an API process waits for a client (README, "Configuration"). Node's defaults (60 s for
// the headers, 300 s for the whole request) let a few slow clients hold sockets and body buffers
// for minutes; our largest body (2 MiB) needs well under 30 s even on a slow mobile link.
import { z } from 'zod';
import { envFields, parseEnv } from '../env.ts';

export const httpTimeoutsEnvSchema = z
  .object({
    HTTP_HEADERS_TIMEOUT_MS: envFields.positiveInt.default(10_000),
    HTTP_REQUEST_TIMEOUT_MS: envFields.positiveInt.default(30_000),
  })
  .refine((env) => env.HTTP_HEADERS_TIMEOUT_MS <= env.HTTP_REQUEST_TIMEOUT_MS, {
    message: 'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS',
  });

export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
}

export function readHttpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  const parsed = parseEnv(httpTimeoutsEnvSchema, env);
  return { headersMs: parsed.HTTP_HEADERS_TIMEOUT_MS, requestMs: parsed.HTTP_REQUEST_TIMEOUT_MS };
}
