// Webhook management as a service (spec 4.5; docs/webhooks.md): URL rules, the per-account cap,
// ownership, and queueing a test event. Routes only translate HTTP to these calls.
import { z } from 'zod';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { text } from '../../common/domain/text.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import { newId } from '../../common/ids.ts';
import { OutboundRefusedError, type OutboundClient } from '../../common/outbound/index.ts';
import {
  MAX_WEBHOOKS_PER_ACCOUNT,
  publicRecord,
  SUBSCRIBABLE_EVENTS,
  type WebhookRecord,
  type WebhookStore,
} from '../../common/webhooks/store.ts';
import type { WebhookOutbox } from '../../common/webhooks/outbox.ts';

export const registerBodySchema = z.strictObject({
  url: text().min(1).max(2048),
  events: z.array(z.enum(SUBSCRIBABLE_EVENTS)).min(1).optional(),
  description: text().max(500).optional(),
});
export type RegisterBody = z.output<typeof registerBodySchema>;

export interface WebhookServiceDeps {
  store: WebhookStore;
  outbound: OutboundClient;
  outbox: WebhookOutbox;
}

export function webhookService(deps: WebhookServiceDeps) {
  const { store } = deps;

  async function owned(auth: ApiKeyRecord, id: string) {
    const webhook = await redisCall(() => store.getOwned(auth.account_id, auth.mode, id));
    if (!webhook) throw new AppError('not_found', `No webhook ${id} for this key's account and mode`);
    return webhook;
  }

  return {
    async register(auth: ApiKeyRecord, body: RegisterBody): Promise<WebhookRecord & { secret: string }> {
      const { url, description = '' } = body;
      const events = [...new Set(body.events ?? SUBSCRIBABLE_EVENTS)];
      await checkUrl(deps.outbound, url, auth.mode);
      const created = await redisCall(() =>
        store.create({ account_id: auth.account_id, mode: auth.mode, url, events, description }),
      );
      if (!created) {
        throw new AppError(
          'limit_exceeded',
          `An account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first`,
          { details: { limit: MAX_WEBHOOKS_PER_ACCOUNT }, retriable: false },
        );
      }
      return { ...publicRecord(created), secret: created.secret };
    },

    async list(auth: ApiKeyRecord): Promise<WebhookRecord[]> {
      const all = await redisCall(() => store.list(auth.account_id, auth.mode));
      return all.map(publicRecord);
    },

    async get(auth: ApiKeyRecord, id: string): Promise<WebhookRecord> {
      return publicRecord(await owned(auth, id));
    },

    async remove(auth: ApiKeyRecord, id: string): Promise<{ id: string; status: 'deleted' }> {
      const deleted = await redisCall(() => store.delete(auth.account_id, auth.mode, id));
      if (!deleted) throw new AppError('not_found', `No webhook ${id} for this key's account and mode`);
      return { id, status: 'deleted' };
    },

    /** Queues a `webhook.test` event for this one webhook; the stream delivers it like any other. */
    async sendTest(auth: ApiKeyRecord, id: string) {
      const webhook = await owned(auth, id);
      if (webhook.status === 'disabled') {
        throw new AppError('validation_failed', `Webhook ${id} is disabled (${webhook.disabled_reason})`, {
          details: { field: 'status', code: 'webhook_disabled', message: 'register the URL again' },
          retriable: false,
        });
      }
      const eventId = newId();
      const at = new Date().toISOString();
      await redisCall(() =>
        // Never capped: a cap drops unread events (common/webhooks/outbox.ts).
        deps.outbox.append(auth.account_id, {
          type: 'webhook.test',
          event_id: eventId,
          webhook_id: id,
          account_id: auth.account_id,
          at,
        }),
      );
      return { event_id: eventId, type: 'webhook.test', webhook_id: id, queued_at: at };
    },
  };
}

export type WebhookService = ReturnType<typeof webhookService>;

/** A registration waits this long for DNS at most (then: unresolvable_host), not the client's 30 s. */
const REGISTRATION_DNS_TIMEOUT_MS = 5_000;

/** URL rules: SSRF policy after DNS, https for live keys unless the target is explicitly allowed. */
async function checkUrl(outbound: OutboundClient, url: string, mode: ApiKeyRecord['mode']): Promise<void> {
  const refuse = (code: string, message: string) =>
    new AppError('validation_failed', `Webhook URL refused: ${message}`, {
      details: [{ field: 'url', code, message }],
      retriable: false,
    });
  let target;
  try {
    target = await outbound.check(url, { timeoutMs: REGISTRATION_DNS_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof OutboundRefusedError) throw refuse(error.code, error.message);
    throw error;
  }
  if (target.url.hash) throw refuse('invalid_url', 'URLs must not carry a #fragment');
  if (mode === 'live' && target.url.protocol !== 'https:' && !target.explicitlyAllowed) {
    throw refuse('https_required', 'live keys may only register https URLs');
  }
}

async function redisCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw dependencyUnavailable('redis', error);
  }
}
