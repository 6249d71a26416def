// Standard Webhooks signatures (https://www.standardwebhooks.com): HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<body>" with the base64-decoded part of the whsec_ secret.
import { createHmac } from 'node:crypto';

export function signPayload(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The headers of one attempt; webhook-id stays the same across retries, the timestamp does not. */
export function deliveryHeaders(secret: string, messageId: string, body: string, now = Date.now()) {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signPayload(secret, messageId, timestamp, body),
  };
}
