// What the key management tests share: the /keys calls of an admin key, the error check, and the
// steps that age and check pruned revoked keys.
import { expect } from 'vitest';
import { keyStoreKeys } from '../../common/auth/key-store.ts';
import { api, createTestKey, env, testRedis, type ApiResponse, type TestKey } from './api.ts';

export const usagePath = '/api/v1/listings/bulk';

export function expectError(response: ApiResponse, status: number, code: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error).toMatchObject({ code, request_id: expect.any(String) });
}

export const admin = (input: Parameters<typeof createTestKey>[0] = {}) =>
  createTestKey({ role: 'admin', ...input });
export const createKey = (by: TestKey, body: unknown) => api('POST', '/api/v1/keys', { key: by.key, body });
export const listKeys = async (by: TestKey) => {
  const response = await api('GET', '/api/v1/keys', { key: by.key });
  expect(response.status).toBe(200);
  return response.body.keys as ({ id: string } & Record<string, any>)[];
};
export const revokeKey = (by: TestKey, id: string) => api('DELETE', `/api/v1/keys/${id}`, { key: by.key });
export const rollKey = (by: TestKey, id: string, body: unknown = {}) =>
  api('POST', `/api/v1/keys/${id}/roll`, { key: by.key, body });

/** GET on another gateway process. */
export async function getOn(base: string, path: string, key: string) {
  const response = await fetch(`${base}${path}`, { headers: { 'X-API-Key': key } });
  return { status: response.status, body: (await response.json()) as any };
}

/** Key ids, sorted (list order between keys created in the same millisecond is not defined). */
export const ids = (keys: { id: string }[]) => keys.map((k) => k.id).sort();

export const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

/** Moves a revoked key's revoked_at 31 days back (past the days revoked keys stay listed). */
export async function ageRevocation(id: string) {
  const redis = await testRedis();
  const names = keyStoreKeys(env.REDIS_KEY_PREFIX);
  const hash = await redis.get(names.hashById(id));
  await redis.hset(names.byHash(hash!), 'revoked_at', daysAgo(31));
}

/** `pruned` has left the account's key list and still gets 403; `kept` (revoked lately) is listed. */
export async function expectPruned(by: TestKey, pruned: { id: string; key: string }, kept: { id: string }) {
  const listed = ids(await listKeys(by));
  expect(listed).not.toContain(pruned.id);
  expect(listed).toContain(kept.id);
  expectError(await api('GET', usagePath, { key: pruned.key }), 403, 'revoked_api_key');
}
