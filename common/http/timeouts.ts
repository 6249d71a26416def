// How long an API process waits for a client (docs/configuration.md, "Variables"). Node's defaults (60 s for
// the headers, 300 s for the whole request) let a few slow clients hold sockets and body buffers
// for minutes; our largest body (2 MiB) needs well under 30 s even on a slow mobile link.
import type { ListenerEnv } from '../env.ts';

export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
}

/** The defaults of HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS (common/env.ts). */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 30_000 };

export function httpTimeouts(env: ListenerEnv): HttpTimeouts {
  return { headersMs: env.HTTP_HEADERS_TIMEOUT_MS, requestMs: env.HTTP_REQUEST_TIMEOUT_MS };
}
