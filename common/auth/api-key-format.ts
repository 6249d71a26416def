// API key format: svc_<mode>_<32 base62 chars of randomness (~190 bits)><6 base62 chars of checksum>.
// The checksum lets us reject typos and garbage without touching Redis.
import { createHash, randomInt } from 'node:crypto';

export const keyModes = ['live', 'test'] as const;
export type KeyMode = (typeof keyModes)[number];

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const keyPattern = new RegExp(
  `^svc_(live|test)_([0-9A-Za-z]{${BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

function base62(bytes: Buffer, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[bytes[i]! % 62];
  return out;
}

function checksum(prefixAndBody: string): string {
  return base62(createHash('sha256').update(prefixAndBody).digest(), CHECKSUM_LENGTH);
}

export function generateApiKey(mode: KeyMode): string {
  let body = '';
  for (let i = 0; i < BODY_LENGTH; i++) body += alphabet[randomInt(62)];
  const prefixAndBody = `svc_${mode}_${body}`;
  return prefixAndBody + checksum(prefixAndBody);
}

/** The mode of a well-formed key with a valid checksum, or null. */
export function parseApiKey(key: string): KeyMode | null {
  const match = keyPattern.exec(key);
  if (!match) return null;
  const prefixAndBody = `svc_${match[1]}_${match[2]}`;
  return checksum(prefixAndBody) === match[3] ? (match[1] as KeyMode) : null;
}

/** What we store instead of the key: its SHA-256 (the key has ~190 random bits, so no salt is needed). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Shown in listings and usage so people can tell keys apart: prefix plus the first 4 body chars. */
export function displayPrefix(key: string): string {
  return key.slice(0, 'svc_live_'.length + 4) + '…';
}
