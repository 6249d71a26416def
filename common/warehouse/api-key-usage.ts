// `api_key_usage_daily`: per key, day, metric and endpoint, rolled up from Redis (migration 0020).
// Rows are snapshots: the latest `version` wins (read `v_api_key_usage_daily`).
import { defineTable, type DateTimeText } from './table.ts';

export type ApiKeyUsageRow = {
  /** YYYY-MM-DD (UTC). */
  day: string;
  account_id: string;
  key_id: string;
  mode: 'live' | 'test';
  tier: 'free' | 'pro' | 'business' | 'enterprise';
  metric: string;
  endpoint: string;
  value: number;
  /** UInt64 as a decimal string: the roll-up time in ms, so a later snapshot wins. */
  version: string;
  rolled_up_at: DateTimeText;
};

export const apiKeyUsageTable = defineTable<ApiKeyUsageRow>()('api_key_usage_daily', [
  'day',
  'account_id',
  'key_id',
  'mode',
  'tier',
  'metric',
  'endpoint',
  'value',
  'version',
  'rolled_up_at',
]);
