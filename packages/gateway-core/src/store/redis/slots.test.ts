import { describe, expect, it } from 'vitest';
import { crc16, keySlot, shardOf, SLOT_COUNT, spreadTags, tagForSlot } from './slots.js';

describe('cluster slots', () => {
  it("is CRC16/XMODEM, as in the Redis Cluster specification's reference", () => {
    expect(crc16(Buffer.from('123456789'))).toBe(0x31c3);
  });

  it('hashes only a non-empty hash tag, the first one', () => {
    expect(keySlot('user:{1000}:profile')).toBe(keySlot('1000'));
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    expect(keySlot('foo{}{bar}')).toBe(keySlot('foo{}{bar}'));
    expect(keySlot('foo{}{bar}')).not.toBe(keySlot('bar'));
    expect(keySlot('foo{{bar}}zap')).toBe(keySlot('{bar'));
    expect(keySlot('foo{bar}{zap}')).toBe(keySlot('bar'));
  });

  it('spreads tags over equal, consecutive ranges of the slots, one range each', () => {
    for (const count of [1, 3, 16]) {
      const slots = spreadTags(count).map((tag) => keySlot(`{${tag}}`));
      slots.forEach((slot, i) => {
        expect(slot).toBeGreaterThanOrEqual(Math.floor((i * SLOT_COUNT) / count));
        expect(slot).toBeLessThan(Math.floor(((i + 1) * SLOT_COUNT) / count));
      });
    }
  });

  it('puts an id in the same shard every time, and every id in shard 0 of 1', () => {
    expect(shardOf('agt_x', 16)).toBe(shardOf('agt_x', 16));
    expect(new Set(Array.from({ length: 200 }, (_, i) => shardOf(`agt_${i}`, 16))).size).toBe(16);
    expect(shardOf('agt_x', 1)).toBe(0);
  });

  it('has a three-character tag for every slot', () => {
    const wrong = Array.from({ length: SLOT_COUNT }, (_, slot) => slot).filter((slot) => {
      const tag = tagForSlot(slot);
      return !/^[A-Za-z0-9_-]{3}$/.test(tag) || keySlot(`{${tag}}`) !== slot;
    });
    expect(wrong).toEqual([]);
  });
});
