// Kafka cluster ids drawn for a fresh state directory follow Kafka's own rule (Uuid.randomUuid()):
// never an id that begins with `-`, which a command line would read as an option.
import { describe, expect, it } from 'vitest';
import { kafkaClusterId } from '../../infra/local/kafka.mjs';

describe('kafkaClusterId', () => {
  it('draws again when the id would begin with "-" (first byte 0xf8-0xfb)', () => {
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0xfb), Buffer.alloc(16, 0x11)];
    let calls = 0;
    const id = kafkaClusterId(() => draws[calls++]!);
    expect(calls).toBe(3);
    expect(id).toBe(Buffer.alloc(16, 0x11).toString('base64url'));
  });

  it('gives 22 URL-safe base64 characters, never a leading "-"', () => {
    for (let i = 0; i < 2_000; i++) {
      const id = kafkaClusterId();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    }
  });
});
