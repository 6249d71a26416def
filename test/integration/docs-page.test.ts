// GET /docs (contract, "Pages"): the API reference as HTML, no key, rendering this
// process's /api/v1/openapi.json with files served by this process only: a Content-Security-Policy
// of 'self' makes a browser refuse anything else (no CDN).
import { describe, expect, it } from 'vitest';
import { api } from '../support/api.ts';

describe('docs page', () => {
  it('happy: serves the reference and every file it loads, without a key', async () => {
    const page = await api('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = page.body as string;
    // What the page loads: scripts and style sheets (links a person may follow are not loaded).
    const refs = [...html.matchAll(/<(?:script[^>]*src|link[^>]*href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs).toContain('/docs/assets/swagger-ui-bundle.js');
    for (const ref of refs) {
      expect(ref, 'no external resource').toMatch(/^\//);
      const asset = await api('GET', ref);
      expect({ ref, status: asset.status }).toEqual({ ref, status: 200 });
    }
    const init = await api('GET', '/docs/assets/docs.js');
    expect(init.body).toContain("url: '/api/v1/openapi.json'");
  });

  it('error: unknown files are 404 and other methods 405 with Allow', async () => {
    expect((await api('GET', '/docs/assets/..%2F..%2Fpackage.json')).status).toBe(404);
    // Names of Object.prototype's properties are unknown files too, not a 500.
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      for (const page of ['docs', 'dashboard']) {
        const response = await api('GET', `/${page}/assets/${name}`);
        expect(response.status, `${page} ${name}`).toBe(404);
        expect(response.body.error.code).toBe('not_found');
      }
    }
    const post = await api('POST', '/docs');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(post.body.error.code).toBe('method_not_allowed');
  });
});
