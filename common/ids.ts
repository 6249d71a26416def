import { hash, randomUUID } from 'node:crypto';

// Namespace for listing ids (a fixed random UUID; changing it would change every derived id).
const LISTING_NAMESPACE = Buffer.from('6f1d7c1e8a4b4f0c9d2e5b7a3c9e1f20', 'hex');

/** RFC 4122 version-5 (name-based, SHA-1) UUID of `name` in our namespace: same input, same id. */
export function deterministicUuid(name: string): string {
  // One-shot hash() over a reused buffer holding the namespace, hex out: no Hash object and no
  // Buffers per id (each was a measurable share of the API's CPU under bench:ingest).
  const size = NAMESPACE_BYTES + Buffer.byteLength(name);
  if (size > scratch.length) scratch = namespacedBuffer(2 * size);
  scratch.write(name, NAMESPACE_BYTES);
  const hex = hash('sha1', scratch.subarray(0, size), 'hex');
  // Version 5 in the 13th hex digit, the RFC 4122 variant (10xx) in the 17th.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variantDigit[hex.charAt(16)]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const NAMESPACE_BYTES = LISTING_NAMESPACE.length;
function namespacedBuffer(size: number): Buffer {
  const buffer = Buffer.alloc(size);
  LISTING_NAMESPACE.copy(buffer);
  return buffer;
}
let scratch = namespacedBuffer(1024);
const variantDigit: Record<string, string> = Object.fromEntries(
  [...'0123456789abcdef'].map((d) => [d, ((parseInt(d, 16) & 0x3) | 0x8).toString(16)]),
);

export const newId = randomUUID;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A canonical UUID string (any version): safe to use as a key or an SQL literal. */
export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}
