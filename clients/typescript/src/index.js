// The client: one method per operation of the bundled OpenAPI document (dist/operations.js, built
// from openapi.json), named by its operationId and taking one object: path and query parameters by
// name, `body` for a request body. Answers are the parsed JSON (text for HTML/plain answers); a
// refusal throws RlsApiError. 429 and retriable 5xx are tried again after Retry-After; a request
// whose operation takes an Idempotency-Key gets one, the same on every retry. Redirects are never
// followed (fetch would send X-API-Key to wherever Location points): a 3xx throws RlsApiError with
// code redirect_not_followed.
import { randomUUID } from 'node:crypto';
import { RlsApiError, WebhookVerificationError } from './errors.js';
import { operations } from './operations.js';
import { isRetriable, retryDelayMs, sleep } from './retry.js';
import { verifyWebhook } from './webhooks.js';

export { RlsApiError, WebhookVerificationError, operations, verifyWebhook };

function urlOf(baseUrl, op, args) {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name) => {
    if (args[name] === undefined || args[name] === null) throw new TypeError(`${name} is required`);
    return encodeURIComponent(String(args[name]));
  });
  const base = baseUrl.replace(/\/+$/, '');
  const url = new URL(op.outsideApiPrefix ? new URL(base).origin + path : base + path);
  for (const name of op.queryParams) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
  return url;
}

async function parse(response) {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  if (!text) return undefined;
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function isRedirect(response) {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

function redirectRefused(method, url, response) {
  void response.body?.cancel();
  const location = response.headers.get('location');
  const message =
    `${method} ${url} answered ${response.status} redirecting to ${location ?? '(unknown)'}; the ` +
    'client does not follow redirects (it would send the API key to another address): use the ' +
    'address the API really answers on as baseUrl';
  return new RlsApiError(
    response.status,
    { error: { code: 'redirect_not_followed', message, retriable: false, details: { location } } },
    response.headers,
  );
}

/**
 * `createClient({ baseUrl, apiKey })`: baseUrl ends in /api/v1. Options: `maxRetries` (default 5),
 * `baseDelayMs` (500, the backoff without Retry-After), `maxDelayMs` (60 000), `fetch`, `headers`.
 */
export function createClient({
  baseUrl,
  apiKey,
  maxRetries = 5,
  baseDelayMs = 500,
  maxDelayMs = 60_000,
  fetch: fetchImpl = globalThis.fetch,
  headers: extraHeaders = {},
} = {}) {
  if (!baseUrl) throw new TypeError('baseUrl is required (…/api/v1)');
  const timing = { baseDelayMs, maxDelayMs };

  async function call(operationId, op, args = {}) {
    const url = urlOf(baseUrl, op, args);
    const headers = { Accept: 'application/json', ...extraHeaders };
    if (apiKey) headers['X-API-Key'] = apiKey;
    if (op.idempotencyKey) headers['Idempotency-Key'] = args.idempotencyKey ?? randomUUID();
    let body;
    if (args.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(args.body);
    } else if (op.body === 'required') {
      throw new TypeError(`${operationId} needs a body`);
    }
    for (let attempt = 0; ; attempt++) {
      const response = await fetchImpl(url, { method: op.method, headers, body, redirect: 'manual' });
      if (isRedirect(response)) throw redirectRefused(op.method, url, response);
      const parsed = await parse(response);
      if (response.ok) return parsed;
      if (attempt >= maxRetries || !isRetriable(response.status, parsed)) {
        throw new RlsApiError(response.status, parsed, response.headers);
      }
      await sleep(retryDelayMs(response.headers, attempt + 1, timing));
    }
  }

  const client = {};
  for (const [operationId, op] of Object.entries(operations)) {
    client[operationId] = (args) => call(operationId, op, args);
  }
  client.verifyWebhook = verifyWebhook;
  return client;
}
