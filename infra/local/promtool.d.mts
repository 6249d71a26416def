export const PROMTOOL: string;
export function ensurePromtool(): string;
