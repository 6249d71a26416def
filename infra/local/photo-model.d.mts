import type { StackSettings } from './settings.mjs';
export const PHOTO_MODEL_SHA256: string;
export function photoModelPath(settings: StackSettings): string;
export function ensurePhotoModel(settings: StackSettings): Promise<string>;
