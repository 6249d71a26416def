import type { StackSettings } from './settings.mjs';
export const INTERNAL_TCP_OFFSET: number;
export const LOCAL_CLUSTER: string;
export interface ClickHouseNode {
  n: number;
  name: string;
  httpPort: number;
  tcpPort: number;
  internalTcpPort: number;
  url: string;
}
export function clickhouseNodes(settings: StackSettings): ClickHouseNode[];
/** Each server's directories: its data, and where its BACKUP/RESTORE File() paths point. */
export function clickhouseDirectories(
  settings: StackSettings,
): { n: number; url: string; dir: string; data: string; backups: string }[];
export function clickhousePidFiles(settings: StackSettings): string[];
export function startClickHouse(
  settings: StackSettings,
): Promise<{ url: string; urls: string[]; startedPid: number; startedNodes: number[] }>;
export function spreadClickHousePartDirectories(settings: StackSettings): Promise<number>;
export function startClickHouseNode(settings: StackSettings, n: number): Promise<number>;
export function stopClickHouse(settings: StackSettings, only?: number[]): Promise<void>;
