// When to try a request again and how long to wait first: 429 and 5xx answers the API marks
// retriable (or, without a JSON body, 502/503/504), after their Retry-After (seconds or an HTTP
// date), else after an exponential backoff; capped so a client never sleeps for minutes unasked.
const GATEWAY_STATUSES = new Set([502, 503, 504]);

export function isRetriable(status, body) {
  if (status === 429) return true;
  if (status < 500) return false;
  const flag = body && typeof body === 'object' ? body.error?.retriable : undefined;
  return flag === undefined ? GATEWAY_STATUSES.has(status) : flag === true;
}

/** Milliseconds to wait before attempt `attempt` (1 = the first retry). */
export function retryDelayMs(headers, attempt, { baseDelayMs, maxDelayMs }, now = Date.now()) {
  const header = headers?.get('retry-after');
  let ms;
  if (header) {
    const seconds = Number(header);
    ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  }
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) ms = baseDelayMs * 2 ** (attempt - 1);
  return Math.min(ms, maxDelayMs);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
