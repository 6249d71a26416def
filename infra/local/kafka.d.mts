import type { StackSettings } from './settings.mjs';
export function startKafka(
  settings: StackSettings,
): Promise<{ brokers: string; startedPid: number; startedNodes: number[] }>;
export function stopKafka(settings: StackSettings, nodeIds?: number[]): Promise<void>;
export function ensureKafkaJars(settings: StackSettings): Promise<number>;
export function formatNode(
  settings: StackSettings,
  node: { id: number; port: number; controllerPort: number },
  clusterId: string,
): Promise<void>;
export function kafkaClusterId(draw?: () => Uint8Array): string;
