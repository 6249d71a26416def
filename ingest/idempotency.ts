// Idempotency-Key support (docs/ingest.md, "Idempotency"): the first request with a key runs and
// its final response (2xx or 4xx) is kept for 24 h; a later request with the same key and the same
// body gets that response again with `Idempotency-Replayed: true`. The same key with another body
// is 422 idempotency_key_reused; while the first is still running, 409 idempotency_in_progress.
// A 5xx or another retriable answer (409 listing_in_progress) is not kept, so the client can retry
// with the same key. Keys are scoped by account, mode and endpoint: a test key and a live key of one
// account never share a record (a live request must not be answered with a test-mode response).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisScript } from '../common/clients/redis-script.ts';
import type { KeyMode } from '../common/auth/api-key-format.ts';
import { AppError } from '../common/errors.ts';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** How long an unfinished claim blocks the key (a crashed process must not block it for 24 h). */
export const IN_PROGRESS_TTL_SECONDS = 60;
const keyPattern = /^[\x21-\x7e]{1,255}$/;

// KEYS[1] record; ARGV[1] body hash, ARGV[2] in-progress ttl.
const claimScript = redisScript(`
local cur = redis.call('HMGET', KEYS[1], 'state', 'hash', 'status', 'body')
if not cur[1] then
  redis.call('HSET', KEYS[1], 'state', 'in_progress', 'hash', ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  return {'claimed'}
end
if cur[2] ~= ARGV[1] then return {'mismatch'} end
if cur[1] == 'in_progress' then return {'in_progress'} end
return {'done', cur[3], cur[4]}
`);

export interface StoredResponse {
  status: number;
  body: string;
}

export type Claim = { kind: 'claimed'; recordKey: string } | { kind: 'replay'; response: StoredResponse };

/** Whose records a key lives among: the endpoint (`bulk`, `views`), the account and the key's mode. */
export interface IdempotencyScope {
  endpoint: string;
  accountId: string;
  mode: KeyMode;
}

export function idempotencyStore(redis: Redis, prefix: string) {
  return {
    /** Claims `key` for this request, or returns the response to replay; throws 409/422/400. */
    async claim(scope: IdempotencyScope, key: string, rawBody: Buffer): Promise<Claim> {
      if (!keyPattern.test(key)) {
        throw new AppError(
          'invalid_parameter',
          'Idempotency-Key must be 1–255 printable ASCII characters without spaces',
        );
      }
      const digest = createHash('sha256').update(key).digest('hex');
      const recordKey = `${prefix}idem:${scope.endpoint}:${scope.accountId}:${scope.mode}:${digest}`;
      const bodyHash = createHash('sha256').update(rawBody).digest('hex');
      const [state, status, body] = (await claimScript.run(
        redis,
        1,
        recordKey,
        bodyHash,
        IN_PROGRESS_TTL_SECONDS,
      )) as string[];
      if (state === 'claimed') return { kind: 'claimed', recordKey };
      if (state === 'mismatch') {
        throw new AppError(
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request body; use a new key',
        );
      }
      if (state === 'in_progress') {
        throw new AppError(
          'idempotency_in_progress',
          'A request with this Idempotency-Key is still being processed; retry shortly',
          { retriable: true, retryAfterSeconds: 1 },
        );
      }
      return { kind: 'replay', response: { status: Number(status), body: body ?? '' } };
    },

    async complete(recordKey: string, response: StoredResponse): Promise<void> {
      await redis
        .multi()
        .hset(recordKey, { state: 'done', status: String(response.status), body: response.body })
        .expire(recordKey, IDEMPOTENCY_TTL_SECONDS)
        .exec();
    },

    async release(recordKey: string): Promise<void> {
      await redis.del(recordKey);
    },
  };
}

export type IdempotencyStore = ReturnType<typeof idempotencyStore>;
