// The per-request key check's steps that may fail without failing the request (common/auth/
// access-check.ts): the day's usage mark is best effort, and a failure is logged as a warning, not
// swallowed. Real Redis; the marker is the step made to fail.
import { describe, expect, it } from 'vitest';
import { checkAccess } from '../../common/auth/access-check.ts';
import { hashApiKey } from '../../common/auth/api-key-format.ts';
import { keyStoreKeys } from '../../common/auth/key-store.ts';
import type { Logger } from '../../common/logger.ts';
import type { DirtyMarker } from '../../common/usage/dirty.ts';
import { createTestKey, env, testRedis } from '../support/api.ts';

function capturingLogger(lines: { level: string; msg: string; fields?: Record<string, unknown> }[]): Logger {
  const at =
    (level: string) =>
    (msg: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, msg, fields });
    };
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

describe('key check: best-effort steps', () => {
  it('error: a failed usage mark is logged as a warning and the request is still allowed', async () => {
    const redis = await testRedis();
    const { key } = await createTestKey({ tier: 'free' });
    const hash = hashApiKey(key);
    const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
    const failingMark = (() => Promise.reject(new Error('MOVED to a master that is down'))) as DirtyMarker;
    const result = await checkAccess(
      redis,
      env.REDIS_KEY_PREFIX,
      keyStoreKeys(env.REDIS_KEY_PREFIX).byHash(hash),
      hash,
      '/api/v1/listings/bulk',
      new Date(),
      failingMark,
      capturingLogger(lines),
    );
    expect(result.outcome).toBe('allowed');
    expect(lines).toEqual([
      {
        level: 'warn',
        msg: 'usage: marking the key for the day failed; its next request marks it',
        fields: { error: 'Error: MOVED to a master that is down' },
      },
    ]);
  });
});
