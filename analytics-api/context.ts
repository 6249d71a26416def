// Composition root of the analytics API.
import type { Platform } from '../common/platform.ts';

export interface AnalyticsContext {
  platform: Platform;
  close(): Promise<void>;
}

export async function createAnalyticsContext(platform: Platform): Promise<AnalyticsContext> {
  return { platform, close: async () => undefined };
}
