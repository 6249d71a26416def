// Idempotency-Key support (docs/ingest.md, "Idempotency"): the first request with a key runs and
// its final response (2xx or 4xx) is kept for 24 h; a later request with the same key and the same
// body gets that response again with `Idempotency-Replayed: true`. Of a 4xx only the status, the
// error code, the request id and the SHA-256 of the body are kept, not the body: a refused request
// uses no quota, so keeping a large error body (100 invalid listings: ~1 MB) for a day would let
// any key grow Redis without bound. Its replay says so (replayedError below). The same key with another body
// is 422 idempotency_key_reused; while the first is still running, 409 idempotency_in_progress.
// A 5xx or another retriable answer (409 listing_in_progress) is not kept, so the client can retry
// with the same key. Keys are scoped by account, mode and endpoint: a test key and a live key of one
// account never share a record (a live request must not be answered with a test-mode response).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisScript } from '../common/clients/redis-script.ts';
import type { KeyMode } from '../common/auth/api-key-format.ts';
import { AppError } from '../common/errors.ts';
import { accountSpace } from '../common/redis-keys/tags.ts';
import { quotaKey, reserveQuotaLua, utcDay } from './quota.ts';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** How long an unfinished claim blocks the key (a crashed process must not block it for 24 h). */
export const IN_PROGRESS_TTL_SECONDS = 60;
const keyPattern = /^[\x21-\x7e]{1,255}$/;

// KEYS[1] record; ARGV[1] body hash, ARGV[2] in-progress ttl. A kept 4xx has `code` and no `body`.
const claimScript = redisScript(`
local cur = redis.call('HMGET', KEYS[1], 'state', 'hash', 'status', 'body', 'code', 'request_id', 'digest')
if not cur[1] then
  redis.call('HSET', KEYS[1], 'state', 'in_progress', 'hash', ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  return {'claimed'}
end
if cur[2] ~= ARGV[1] then return {'mismatch'} end
if cur[1] == 'in_progress' then return {'in_progress'} end
return {'done', cur[3], cur[4] or '', cur[5] or '', cur[6] or '', cur[7] or ''}
`);

// KEYS[1] record, KEYS[2] today's quota hash; ARGV[1] quota field, ARGV[2] bytes, ARGV[3] limit,
// ARGV[4] record ttl, ARGV[5..] the record's field/value pairs. Keeps the response when the budget
// has room (1), else forgets the claim (0): one call instead of a reservation and a transaction.
const completeScript = redisScript(`${reserveQuotaLua}
if reserve_quota(KEYS[2], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))[1] == 0 then
  redis.call('DEL', KEYS[1])
  return 0
end
local fields = {}
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
`);

/** A kept 2xx response (body), or a kept 4xx one (what identifies it, without its body). */
export type StoredResponse =
  | { status: number; body: string }
  | { status: number; error: { code: string; requestId: string; digest: string } };

/** SHA-256 (hex) of a response body, what a kept error stands for. */
export function bodyDigest(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** The body answered to a replay of a kept 4xx: its status and code, and why the details are gone. */
export function replayedError(
  stored: { status: number; error: { code: string; requestId: string; digest: string } },
  requestId: string,
): object {
  return {
    error: {
      code: stored.error.code,
      message:
        `This Idempotency-Key was already answered ${stored.status} ${stored.error.code} ` +
        `(request ${stored.error.requestId}); the details of an error are not kept: send the corrected ` +
        'request with a new Idempotency-Key',
      request_id: requestId,
      retriable: false,
      details: {
        replayed: true,
        original_request_id: stored.error.requestId,
        body_sha256: stored.error.digest,
      },
    },
  };
}

export type Claim = { kind: 'claimed'; recordKey: string } | { kind: 'replay'; response: StoredResponse };

/** Whose records a key lives among: the endpoint (`bulk`, `views`), the account and the key's mode. */
export interface IdempotencyScope {
  endpoint: string;
  accountId: string;
  mode: KeyMode;
}

/** What a kept 4xx (status, code, request id, digest) and its hash fields count against the budget. */
const ERROR_RECORD_BYTES = 256;

/**
 * The record of an Idempotency-Key (by its SHA-256, hex) in its scope, under the account's hash tag:
 * completing it also charges the account's quota hash (one script, so one slot on a cluster).
 */
export const idempotencyKey = (prefix: string, scope: IdempotencyScope, keyDigest: string) =>
  `${accountSpace(prefix, scope.accountId)}idem:${scope.endpoint}:${scope.accountId}:${scope.mode}:${keyDigest}`;

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
      const keyDigest = createHash('sha256').update(key).digest('hex');
      const recordKey = idempotencyKey(prefix, scope, keyDigest);
      const bodyHash = createHash('sha256').update(rawBody).digest('hex');
      const [state, status, body, code, requestId, bodySha] = (await claimScript.run(
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
      if (code) {
        const error = { code, requestId: requestId!, digest: bodySha! };
        return { kind: 'replay', response: { status: Number(status), error } };
      }
      return { kind: 'replay', response: { status: Number(status), body: body ?? '' } };
    },

    /**
     * Keeps the final response for replays, unless the account's daily budget of kept bytes
     * (`limit`, by tier) has no room for it: then the claim is released instead — a retry runs again
     * (bulk create answers the same listing ids, as duplicates) — and false is returned. Every reply
     * an account can have kept is thereby bounded, those that stored nothing (all duplicates, all
     * refused) included.
     */
    async complete(
      recordKey: string,
      response: StoredResponse,
      budget: { owner: { accountId: string; mode: KeyMode }; limit: number },
    ): Promise<boolean> {
      const bytes = recordKey.length + ('body' in response ? response.body.length : ERROR_RECORD_BYTES);
      const { accountId, mode } = budget.owner;
      const fields =
        'body' in response
          ? { body: response.body }
          : {
              code: response.error.code,
              request_id: response.error.requestId,
              digest: response.error.digest,
            };
      const kept = await completeScript.run(
        redis,
        2,
        recordKey,
        quotaKey(prefix, accountId, mode, utcDay(new Date())),
        'kept_reply_bytes',
        bytes,
        budget.limit,
        IDEMPOTENCY_TTL_SECONDS,
        ...Object.entries({ state: 'done', status: String(response.status), ...fields }).flat(),
      );
      return kept === 1;
    },

    async release(recordKey: string): Promise<void> {
      await redis.del(recordKey);
    },
  };
}

export type IdempotencyStore = ReturnType<typeof idempotencyStore>;
