// Key management over the API (security): a plaintext key appears in its create or roll answer
// only — never in lists, usage or any log line of an API process at debug level; /keys requests
// are rate-limited like every endpoint and documented in the OpenAPI document.
import { describe, expect, it } from 'vitest';
import { api, eventually } from '../support/api.ts';
import { gatewayForFile } from '../support/auth.ts';
import { usagePath, expectError, admin, getOn, revokeKey } from '../support/keys-api.ts';

// A second API process at debug level, so the test can search everything it logged.
const second = gatewayForFile({ LOG_LEVEL: 'debug' }, undefined, { captureOutput: true });

describe('key management (security)', () => {
  it('shows a plaintext key in its create or roll response only: never in lists, usage or logs', async () => {
    const boss = await admin();
    const created = await fetch(`${second().baseUrl}/api/v1/keys`, {
      method: 'POST',
      headers: { 'X-API-Key': boss.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ mode: 'live', name: 'secret keeper' }),
    });
    expect(created.status).toBe(201);
    const { id, key } = (await created.json()) as { id: string; key: string };
    const rolled = await fetch(`${second().baseUrl}/api/v1/keys/${id}/roll`, {
      method: 'POST',
      headers: { 'X-API-Key': boss.key, 'Content-Type': 'application/json' },
      body: '{}',
    });
    const newKey = ((await rolled.json()) as { key: string }).key;
    for (const secret of [key, newKey]) {
      expect((await getOn(second().baseUrl, usagePath, secret)).status).toBe(200);
      const listed = await getOn(second().baseUrl, '/api/v1/keys', boss.key);
      const usage = await getOn(second().baseUrl, usagePath, secret);
      for (const body of [listed.body, usage.body]) {
        expect(JSON.stringify(body)).not.toContain(secret);
        expect(JSON.stringify(body)).not.toContain(secret.slice(9, 41));
      }
    }
    await revokeKey(boss, id);
    // The second process logged at debug level through all of it.
    await eventually(async () => (second().output().length > 0 ? true : undefined), 5_000, 'log output');
    expect(second().output()).not.toContain(key.slice(9, 41));
    expect(second().output()).not.toContain(newKey.slice(9, 41));
  });

  it('counts /keys requests against the rate limit like every endpoint', async () => {
    const boss = await admin();
    const response = await api('GET', '/api/v1/keys', { key: boss.key });
    expect(response.headers.get('ratelimit-limit')).toBe('60');
    expect(response.headers.get('ratelimit-remaining')).toBe('59');
    expectError(await api('GET', '/api/v1/keys'), 401, 'missing_api_key');
  });

  it('describes every /keys operation in the OpenAPI document', async () => {
    const doc = (await api('GET', '/api/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/keys'])).toEqual(['post', 'get']);
    expect(Object.keys(doc.paths['/keys/{id}'])).toEqual(['delete']);
    const roll = doc.paths['/keys/{id}/roll'].post;
    const grace = roll.requestBody.content['application/json'].schema.properties.expires_in_hours;
    expect(grace).toMatchObject({ type: 'number', exclusiveMinimum: 0, maximum: 168 });
    expect(roll.responses['409'].$ref).toBe('#/components/responses/Error409');
    const created = doc.paths['/keys'].post.responses['201'].content['application/json'].schema;
    expect(created.properties.key.type).toBe('string');
  });
});
