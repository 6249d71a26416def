// Settings of the webhook delivery worker (docs/webhooks.md, "Delivery and retries"), part of the stream worker's
// environment (stream/env.ts).
import { z } from 'zod';
import { envFields } from '../../common/env.ts';

/** Delays before attempt 1, 2, … : immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (≈3.2 days). */
export const DEFAULT_RETRY_SCHEDULE_MS = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];

export const webhookWorkerEnvSchema = z.object({
  /** Comma-separated delays (ms) before each attempt; the first is normally 0. For tests: "0,500,1500". */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      if (!value.trim()) return DEFAULT_RETRY_SCHEDULE_MS;
      const delays = value.split(',').map((part) => Number(part.trim()));
      if (delays.some((d) => !Number.isInteger(d) || d < 0)) {
        ctx.addIssue({ code: 'custom', message: 'comma-separated non-negative integers (ms)' });
        return z.NEVER;
      }
      return delays;
    }),
  WEBHOOK_TIMEOUT_MS: envFields.positiveInt.max(15_000).default(15_000),
  WEBHOOK_CONCURRENCY: envFields.positiveInt.default(16),
  /** Attempts in flight per account and worker: one account's slow receiver holds no more (queue.ts). */
  WEBHOOK_PER_ACCOUNT_CONCURRENCY: envFields.positiveInt.default(4),
  /** Outbox events without deliveries yet at which the worker warns (outbox-watch.ts). */
  WEBHOOK_OUTBOX_WARN_BACKLOG: envFields.positiveInt.default(10_000),
});
export type WebhookWorkerEnv = z.infer<typeof webhookWorkerEnvSchema>;
