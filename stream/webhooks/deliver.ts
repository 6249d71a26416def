// One delivery attempt: sign, POST through the SSRF-safe client (target checked again now), then
// decide: 2xx done; 410 disables the webhook; anything else retries on the schedule (Retry-After
// honoured) until it is exhausted, which disables a webhook that has not succeeded since. Every
// attempt is logged to ClickHouse (webhook_deliveries).
import type { Logger } from '../../common/logger.ts';
import { errorFields } from '../../common/logger.ts';
import {
  OutboundRefusedError,
  OutboundTransportError,
  retryAfterMs,
  type OutboundClient,
} from '../../common/outbound/index.ts';
import type { StoredWebhook, WebhookStore } from '../../common/webhooks/store.ts';
import type { WebhookDeliveryRow } from '../../common/warehouse/webhook-deliveries.ts';
import type { ClickHouseWriter } from '../sink/clickhouse-writer.ts';
import type { Claimed, Delivery, DeliveryQueue } from './queue.ts';
import { retryDelayMs } from './schedule.ts';
import { deliveryHeaders } from './signing.ts';

export const RESPONSE_BODY_LIMIT_BYTES = 4 * 1024;

export interface DeliverDeps {
  queue: DeliveryQueue;
  webhooks: WebhookStore;
  outbound: OutboundClient;
  log: ClickHouseWriter<WebhookDeliveryRow>;
  schedule: readonly number[];
  timeoutMs: number;
  workerId: string;
  logger: Logger;
}

type Outcome = 'succeeded' | 'retrying' | 'failed' | 'gone' | 'dropped';

export function createDeliverer(deps: DeliverDeps) {
  /** Runs one claimed delivery to its next state. */
  return (claimed: Claimed, token: string): Promise<Outcome> => attempt(deps, claimed, token);
}

/** A delivery being attempted: what its log row and its queue entry need, whatever the outcome. */
interface Attempt {
  claimed: Claimed;
  token: string;
  delivery: Delivery;
  webhook: StoredWebhook;
  startedAt: Date;
  firstAttemptAt: string;
  row: Omit<WebhookDeliveryRow, 'duration_ms' | 'status_code' | 'outcome' | 'error'>;
}

/** The receiver's answer: its status (0: none) and the error to log ('' on success). */
interface Answer {
  status: number;
  error: string;
  retryAfter?: number;
}

async function attempt(deps: DeliverDeps, claimed: Claimed, token: string): Promise<Outcome> {
  const { queue, webhooks } = deps;
  const { id } = claimed;
  const startedAt = new Date();
  const delivery = await queue.get(claimed.account, id);
  if (!delivery || delivery.state === 'done') {
    await queue.finish(claimed, token, { done: true }, delivery?.attempt ?? 0, startedAt.toISOString());
    return 'dropped';
  }
  const firstAttemptAt = delivery.first_attempt_at ?? startedAt.toISOString();
  const webhook = await webhooks.get(delivery.account_id, delivery.webhook_id);
  const row = {
    delivery_id: id,
    attempted_at: startedAt.toISOString(),
    worker_id: deps.workerId,
    next_attempt_at: null,
    attempt: delivery.attempt + 1,
    webhook_id: delivery.webhook_id,
    account_id: delivery.account_id,
    is_test: delivery.is_test ? (1 as const) : (0 as const),
    event_type: delivery.event_type,
    event_id: delivery.event_id,
    url: webhook?.url ?? '',
  };
  if (!webhook || webhook.status !== 'enabled') {
    // Deleted or disabled since the event: it receives nothing more.
    await queue.finish(claimed, token, { done: true }, delivery.attempt, firstAttemptAt);
    record(deps, {
      ...row,
      attempt: delivery.attempt,
      duration_ms: 0,
      status_code: 0,
      outcome: 'dropped',
      error: webhook ? `webhook disabled (${webhook.disabled_reason})` : 'webhook deleted',
    });
    return 'dropped';
  }
  const answer = await post(deps, webhook, id, delivery.payload);
  return settle(deps, { claimed, token, delivery, webhook, startedAt, firstAttemptAt, row }, answer);
}

/** Signs and POSTs the payload through the SSRF-safe client; a refusal or transport error is an answer too. */
async function post(deps: DeliverDeps, webhook: StoredWebhook, id: string, payload: string): Promise<Answer> {
  try {
    const response = await deps.outbound.request({
      url: webhook.url,
      method: 'POST',
      headers: deliveryHeaders(webhook.secret, id, payload),
      body: payload,
      timeoutMs: deps.timeoutMs,
      maxBodyBytes: RESPONSE_BODY_LIMIT_BYTES,
    });
    const status = response.status;
    const error = status < 200 || status >= 300 ? `receiver answered ${status}` : '';
    return { status, error, retryAfter: retryAfterMs(response.headers) };
  } catch (failure) {
    if (failure instanceof OutboundRefusedError)
      return { status: 0, error: `refused: ${failure.code}: ${failure.message}` };
    if (failure instanceof OutboundTransportError)
      return { status: 0, error: `${failure.code}: ${failure.message}` };
    throw failure;
  }
}

/** 2xx done; 410 disables the webhook; anything else is retried on the schedule, or has failed. */
async function settle(deps: DeliverDeps, current: Attempt, answer: Answer): Promise<Outcome> {
  const { queue, webhooks, logger } = deps;
  const { claimed, token, delivery, webhook, firstAttemptAt, row } = current;
  const { status, error } = answer;
  const now = new Date();
  const attempts = delivery.attempt + 1;
  const timing = { duration_ms: now.getTime() - current.startedAt.getTime(), status_code: status, error };
  const at = now.toISOString();

  if (status >= 200 && status < 300) {
    await queue.finish(claimed, token, { done: true }, attempts, firstAttemptAt);
    await webhooks.recordSuccess(webhook.account_id, webhook.id, at);
    record(deps, { ...row, ...timing, outcome: 'succeeded' });
    return 'succeeded';
  }
  if (status === 410) {
    await queue.finish(claimed, token, { done: true }, attempts, firstAttemptAt);
    await webhooks.disable(webhook.account_id, webhook.id, 'receiver answered 410 Gone', at);
    record(deps, { ...row, ...timing, outcome: 'gone' });
    logger.info('webhook disabled: 410', { webhook_id: webhook.id });
    return 'gone';
  }
  await webhooks.recordFailure(webhook.account_id, webhook.id, at, error);
  const delay = retryDelayMs(deps.schedule, attempts + 1, answer.retryAfter);
  if (delay === undefined) {
    await queue.finish(claimed, token, { done: true }, attempts, firstAttemptAt);
    record(deps, { ...row, ...timing, outcome: 'failed' });
    await disableIfFailing(deps, webhook, firstAttemptAt, error, at);
    return 'failed';
  }
  const nextDueAt = now.getTime() + delay;
  await queue.finish(claimed, token, { done: false, nextDueAt }, attempts, firstAttemptAt);
  record(deps, {
    ...row,
    ...timing,
    outcome: 'retrying',
    next_attempt_at: new Date(nextDueAt).toISOString(),
  });
  return 'retrying';
}

/** The whole schedule (about three days by default) failed: disabled if no success since it began. */
async function disableIfFailing(
  deps: DeliverDeps,
  webhook: StoredWebhook,
  firstAttemptAt: string,
  error: string,
  at: string,
): Promise<void> {
  const latest = await deps.webhooks.get(webhook.account_id, webhook.id);
  if (latest && (!latest.last_success_at || latest.last_success_at < firstAttemptAt)) {
    await deps.webhooks.disable(
      webhook.account_id,
      webhook.id,
      `no successful delivery since ${latest.failing_since ?? firstAttemptAt}; last error: ${error}`,
      at,
    );
    deps.logger.warn('webhook disabled: failing', { webhook_id: webhook.id });
  }
}

function record(deps: DeliverDeps, row: WebhookDeliveryRow): void {
  // The log must not hold deliveries up: the writer retries on its own while ClickHouse is down.
  deps.log
    .write([row], null)
    .catch((error) => deps.logger.warn('could not log a delivery attempt', errorFields(error)));
}
