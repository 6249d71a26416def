import { describe, expect, it } from 'vitest';
import { accountSpace, partOf, partSpace } from '../../common/redis-keys/tags.ts';
import { assertOneSlot, CrossSlotError, hashTagOf, keySlot } from '../../common/redis-keys/slot.ts';

describe('Redis Cluster slots', () => {
  it('happy: slots match the values Redis documents (CLUSTER KEYSLOT)', () => {
    expect(keySlot('123456789')).toBe(12739);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    expect(keySlot('foo{}{bar}')).toBe(keySlot('foo{}{bar}'));
    expect(hashTagOf('foo{}{bar}')).toBeNull();
    expect(hashTagOf('rls:{a:acct_1}:quota')).toBe('a:acct_1');
  });

  it('happy: the table-driven CRC gives the bitwise CRC16/XMODEM for ASCII and UTF-8 names', () => {
    const bitwise = (text: string) => {
      let crc = 0;
      for (const byte of Buffer.from(text)) {
        crc ^= byte << 8;
        for (let bit = 0; bit < 8; bit++)
          crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
      }
      return crc % 16384;
    };
    const names = [
      'rls:{o:0a1b2}owners:v2',
      'Dar es Salaam',
      'Mwanza-Ilemela',
      'nyumba ya ñandú',
      '{ü}x',
      '☃ snow',
      '',
    ];
    for (let i = 0; i < 200; i++) names.push(`rls:{a:acct_${i * 7919}}:quota`);
    for (const name of names) expect(keySlot(name), name).toBe(bitwise(hashTagOf(name) ?? name));
  });

  it('happy: keys of one account share a slot; untagged keys are let through', () => {
    const space = accountSpace('rls:', 'acct_1');
    expect(() => assertOneSlot([`${space}quota`, `${space}idem:x`], 'test')).not.toThrow();
    expect(() => assertOneSlot(['rls:quota:a', 'rls:seen:b'], 'test')).not.toThrow();
  });

  it('error: keys of two accounts, or a tagged key beside an untagged one, are refused', () => {
    expect(() =>
      assertOneSlot([`${accountSpace('rls:', 'a1')}x`, `${accountSpace('rls:', 'a2')}x`], 't'),
    ).toThrow(CrossSlotError);
    expect(() => assertOneSlot([`${accountSpace('rls:', 'a1')}x`, 'rls:outbox'], 't')).toThrow(
      CrossSlotError,
    );
  });

  it('happy: parts are stable and cover 0 … parts-1', () => {
    const seen = new Set(Array.from({ length: 2000 }, (_, i) => partOf(`acct_${i}`, 16)));
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(partOf('acct_7', 16)).toBe(partOf('acct_7', 16));
    expect(partSpace('rls:', 3)).toBe('rls:{g:3}:');
  });
});
