// Connection URLs in messages and logs without their credentials: REDIS_URL and CLICKHOUSE_URL may
// carry `user:password@`, and a CLI's stderr ends up in terminals, CI logs and bug reports.

/** `redis://user:secret@host:6379/0` → `redis://***@host:6379/0`; URLs without credentials unchanged. */
export function redactUrl(url: string): string {
  // Whatever sits between the scheme and the last `@` before the host is user information; a
  // password may itself contain `@` or `/`, so this does not rely on URL parsing succeeding.
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^?#]*@/i, '$1***@');
}
