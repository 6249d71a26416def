// The Redis Cluster slot of a key (CRC16/XMODEM of its hash tag, or of the whole name without one,
// mod 16384), so that code can check before sending that the keys of one script or transaction
// share a slot: a cluster refuses them otherwise (CROSSSLOT), while a single node would run them.

/** The text Redis hashes: between the first `{` and the next `}` when that is not empty. */
export function hashTagOf(key: string): string | null {
  const open = key.indexOf('{');
  if (open < 0) return null;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : null;
}

/** CRC16/XMODEM by byte, so a slot costs a table lookup per byte (admission slots every key it sends). */
const CRC_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

function crc16(text: string): number {
  let crc = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Redis hashes bytes: a name beyond ASCII is hashed as its UTF-8 encoding.
    if (code > 0x7f) return crc16Bytes(Buffer.from(text));
    crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ code) & 0xff]!;
  }
  return crc;
}

function crc16Bytes(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

export function keySlot(key: string): number {
  return crc16(hashTagOf(key) ?? key) % 16384;
}

export class CrossSlotError extends Error {}

/**
 * Throws when `keys` would not share a slot on a cluster. Keys without any tag are the previous
 * layout (one slot only through a tagged prefix): a set of them alone is let through.
 */
export function assertOneSlot(keys: readonly string[], what: string): void {
  if (keys.length < 2 || keys.every((key) => hashTagOf(key) === null)) return;
  // One tag shared by every key is one slot; slots are computed only when the tags differ.
  const tag = hashTagOf(keys[0]!);
  if (tag !== null && keys.every((key) => hashTagOf(key) === tag)) return;
  const first = keySlot(keys[0]!);
  const other = keys.find((key) => keySlot(key) !== first);
  if (other !== undefined) {
    throw new CrossSlotError(`${what}: keys ${keys[0]} and ${other} are in different Redis Cluster slots`);
  }
}
