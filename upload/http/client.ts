// Every request of the uploader goes through here, which owns the retry rules so no caller repeats
// them:
// - network errors, timeouts and 5xx: the same request again (same body, same Idempotency-Key, so
//   the server either replays its answer or runs it for the first time), with exponential backoff;
// - 429: wait as Retry-After / RateLimit-Reset say (the shared RateGate), then again;
// - 409 idempotency_in_progress (an earlier attempt with this key is still running): again shortly;
// - 401/403: fatal, the key is wrong, revoked or not allowed — no row can succeed;
// - 3xx: fatal, never followed — fetch would send X-API-Key to wherever Location points;
// - anything else is the caller's answer to interpret (201, 400 all_listings_failed, 413, …).
// Each kind of retry is bounded, so an unreachable or broken server ends in a clear fatal error.
import { FatalError } from '../fatal.ts';
import { retryAfterMs, sleep, type RateGate } from './rate-gate.ts';

export interface ApiAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

export interface ApiClientOptions {
  /** Base URL including /api/v1, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  gate: RateGate;
  /** Aborts waits and requests (SIGINT, or a fatal error elsewhere). */
  signal: AbortSignal;
  timeoutMs?: number;
  /** Told about every wait longer than a moment, for the progress display. */
  onWait?(reason: string, ms: number): void;
}

export const retryLimits = { transient: 10, rateLimited: 50, inProgress: 90 };
const MAX_BACKOFF_MS = 30_000;

export interface ApiErrorInfo {
  code: string;
  message: string;
}

/** The `{"error":{code,message}}` of a non-2xx body (docs/api-decisions.md, "Errors"), or a stand-in. */
export function errorOf(answer: ApiAnswer): ApiErrorInfo {
  const error = (answer.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return {
    code: typeof error?.code === 'string' ? error.code : `http_${answer.status}`,
    message: typeof error?.message === 'string' ? error.message : `HTTP ${answer.status}`,
  };
}

export function createApiClient(options: ApiClientOptions) {
  const timeoutMs = options.timeoutMs ?? 60_000;

  async function request(
    method: 'GET' | 'POST',
    path: string,
    init: { body?: string; idempotencyKey?: string } = {},
  ): Promise<ApiAnswer> {
    const url = `${options.baseUrl}${path}`;
    const headers: Record<string, string> = { 'X-API-Key': options.apiKey, Accept: 'application/json' };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    if (init.idempotencyKey) headers['Idempotency-Key'] = init.idempotencyKey;
    const tries = { transient: 0, rateLimited: 0, inProgress: 0 };

    for (;;) {
      await options.gate.wait(options.signal);
      let answer: ApiAnswer;
      try {
        const response = await fetch(url, {
          method,
          headers,
          body: init.body,
          redirect: 'manual',
          signal: AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]),
        });
        if (isRedirect(response)) throw redirectRefused(method, url, response);
        const text = await response.text();
        answer = { status: response.status, body: parseBody(text), headers: response.headers };
      } catch (error) {
        if (error instanceof FatalError) throw error;
        if (options.signal.aborted) throw options.signal.reason;
        const reason = describeNetworkError(error);
        if (++tries.transient > retryLimits.transient) {
          throw new FatalError(
            `cannot reach the API at ${options.baseUrl} (${reason}); gave up after ${tries.transient} attempts`,
          );
        }
        await pause(`network error (${reason}); retrying`, backoffMs(tries.transient));
        continue;
      }
      options.gate.observe(answer.headers);

      if (answer.status === 429) {
        if (++tries.rateLimited > retryLimits.rateLimited) {
          throw new FatalError(`still rate limited after ${retryLimits.rateLimited} waits; giving up`);
        }
        // Retry-After, else RateLimit-Reset (already in the gate), else the spec's 60 s (§8).
        const ms = retryAfterMs(answer.headers) ?? (options.gate.closedMs() || 60_000);
        options.gate.closeFor(ms);
        options.onWait?.('rate limited', ms);
        continue;
      }
      if (answer.status === 409 && errorOf(answer).code === 'idempotency_in_progress') {
        if (++tries.inProgress > retryLimits.inProgress) {
          throw new FatalError(
            `${method} ${path}: the API kept answering 409 idempotency_in_progress; giving up`,
          );
        }
        await pause('batch still in progress on the server', retryAfterMs(answer.headers) ?? 1_000);
        continue;
      }
      if (answer.status >= 500) {
        const { code, message } = errorOf(answer);
        if (++tries.transient > retryLimits.transient) {
          throw new FatalError(`the API keeps failing: ${answer.status} ${code}: ${message}`);
        }
        const ms = Math.max(retryAfterMs(answer.headers) ?? 0, backoffMs(tries.transient));
        await pause(`server error ${answer.status} ${code}; retrying`, ms);
        continue;
      }
      if (answer.status === 401 || answer.status === 403) {
        const { code, message } = errorOf(answer);
        throw new FatalError(`the API refused the key in RLS_API_KEY: ${answer.status} ${code}: ${message}`);
      }
      return answer;
    }
  }

  async function pause(reason: string, ms: number): Promise<void> {
    if (ms >= 1_000) options.onWait?.(reason, ms);
    await sleep(ms, options.signal);
  }

  return { request, baseUrl: options.baseUrl };
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** 0.5 s, 1 s, 2 s, … up to 30 s, with ±20 % jitter so parallel batches do not retry in step. */
function backoffMs(attempt: number): number {
  const base = Math.min(MAX_BACKOFF_MS, 500 * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

function redirectRefused(method: string, url: string, response: Response): FatalError {
  void response.body?.cancel();
  const location = response.headers.get('location');
  return new FatalError(
    `${method} ${url} answered ${response.status} redirecting to ${location ?? '(no Location)'}; ` +
      'the uploader does not follow redirects (it would send RLS_API_KEY to another address): ' +
      'set RLS_API_URL to the address the API really answers on',
  );
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return 'timed out';
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
