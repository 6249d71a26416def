// One gate for every request of the upload (all concurrent batches and the --wait polls share the
// key's rate limit): closed until a moment the server named. The API sends RateLimit-Limit/
// -Remaining/-Reset on every response and Retry-After on 429 (docs/auth.md); the gate closes when
// the window is used up (Remaining 0, so the next request does not even earn a 429) and when a 429
// says how long to wait. Requests already in flight may still get a 429; the client waits it out.

export class RateGate {
  private openAt = 0;

  /** Keeps the gate closed for at least `ms` from now. */
  closeFor(ms: number): void {
    this.openAt = Math.max(this.openAt, Date.now() + ms);
  }

  /** Reads the RateLimit-* fields of any response. */
  observe(headers: Headers): void {
    const remaining = numberHeader(headers, 'ratelimit-remaining');
    const reset = numberHeader(headers, 'ratelimit-reset');
    if (remaining === 0 && reset !== undefined) this.closeFor(reset * 1000);
  }

  /** Milliseconds until the gate opens (0 when open). */
  closedMs(): number {
    return Math.max(0, this.openAt - Date.now());
  }

  async wait(signal?: AbortSignal): Promise<void> {
    for (let ms = this.closedMs(); ms > 0; ms = this.closedMs()) await sleep(ms, signal);
  }
}

function numberHeader(headers: Headers, name: string): number | undefined {
  const value = headers.get(name);
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
