// Standard Webhooks verification (https://www.standardwebhooks.com), as the service signs:
// HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<raw body>" keyed with the base64 part of the
// whsec_ secret, any "v1,<base64>" of webhook-signature matching, the timestamp within 5 minutes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';

const TOLERANCE_SECONDS = 5 * 60;

function header(headers, name) {
  if (typeof headers?.get === 'function') return headers.get(name) ?? undefined;
  const found = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name);
  const value = found?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The parsed event when `payload` (the raw body, string or bytes) carries a valid signature of
 * `secret`; throws WebhookVerificationError otherwise.
 */
export function verifyWebhook(payload, headers, secret, { now = Date.now() } = {}) {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing required headers');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp');
  if (Math.abs(now / 1000 - seconds) > TOLERANCE_SECONDS) {
    throw new WebhookVerificationError('Message timestamp too old or too new');
  }
  const body = typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8');
  const key = Buffer.from(String(secret).replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('No matching signature found');
  return JSON.parse(body);
}
