// `webhook_deliveries`: one row per delivery attempt, kept 90 days (migrations 0030, 0041).
import { defineTable, type DateTimeText } from './table.ts';

export type WebhookDeliveryRow = {
  delivery_id: string;
  attempt: number;
  webhook_id: string;
  account_id: string;
  is_test: 0 | 1;
  event_type: string;
  event_id: string;
  url: string;
  attempted_at: DateTimeText;
  duration_ms: number;
  status_code: number;
  outcome: 'succeeded' | 'retrying' | 'failed' | 'gone' | 'dropped';
  error: string;
  next_attempt_at: DateTimeText | null;
  worker_id: string;
};

export const webhookDeliveriesTable = defineTable<WebhookDeliveryRow>()('webhook_deliveries', [
  'delivery_id',
  'attempt',
  'webhook_id',
  'account_id',
  'is_test',
  'event_type',
  'event_id',
  'url',
  'attempted_at',
  'duration_ms',
  'status_code',
  'outcome',
  'error',
  'next_attempt_at',
  'worker_id',
]);
