export function tableDirectories(dataDir: string): string[];
export function spreadPartDirectories(dataDir: string): Promise<number>;
