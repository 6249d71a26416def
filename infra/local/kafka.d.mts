import type { StackSettings } from './settings.mjs';
export function startKafka(settings: StackSettings): Promise<{ brokers: string; startedPid: number }>;
export function stopKafka(settings: StackSettings): Promise<void>;
export function ensureKafkaJars(settings: StackSettings): Promise<number>;
