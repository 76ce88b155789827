import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derToJoseSignature } from './ecdsa-signature.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

/** A DER INTEGER of `bytes` as DER writes it: a 0x00 ahead of a high first bit. */
function derInteger(bytes: Buffer): Buffer {
  const body = bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes;
  return Buffer.concat([Buffer.from([0x02, body.length]), body]);
}

function derSequence(r: Buffer, s: Buffer): Buffer {
  const content = Buffer.concat([derInteger(r), derInteger(s)]);
  return Buffer.concat([Buffer.from([0x30, content.length]), content]);
}

describe('derToJoseSignature', () => {
  it("gives signatures Node's own P1363 verification accepts, whatever the integers' lengths", () => {
    const data = Buffer.from('header.payload');
    const seen = { highBit: 0, short: 0 };
    for (let i = 0; i < 3000; i++) {
      const der = sign('sha256', data, privateKey);
      const raw = derToJoseSignature(der, 32);
      expect(raw).toHaveLength(64);
      expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, raw)).toBe(true);
      for (const integer of [raw.subarray(0, 32), raw.subarray(32)]) {
        if (integer[0]! & 0x80) seen.highBit++;
        if (integer[0] === 0) seen.short++;
      }
    }
    // Half the integers have a high bit (DER: 33 bytes); about one in 256 is shorter than 32 bytes.
    expect(seen.highBit).toBeGreaterThan(2000);
    expect(seen.short).toBeGreaterThan(0);
  });

  it('left-pads short integers and drops the sign byte of long ones', () => {
    const r = Buffer.from([0x01, 0x02]);
    const s = Buffer.alloc(32, 0xff);
    const raw = derToJoseSignature(derSequence(r, s), 32);
    expect(raw.subarray(0, 32)).toEqual(Buffer.concat([Buffer.alloc(30), r]));
    expect(raw.subarray(32)).toEqual(s);
    // A zero integer is one 0x00 byte in DER.
    expect(derToJoseSignature(derSequence(Buffer.from([0]), s), 32).subarray(0, 32)).toEqual(Buffer.alloc(32));
  });

  it('refuses what is not a DER sequence of two integers that fit', () => {
    const good = derSequence(Buffer.alloc(32, 1), Buffer.alloc(32, 2));
    expect(() => derToJoseSignature(good, 32)).not.toThrow();
    const bad = [
      Buffer.concat([Buffer.from([0x31]), good.subarray(1)]), // not a SEQUENCE
      good.subarray(0, good.length - 1), // cut short
      Buffer.concat([good, Buffer.from([0])]), // trailing byte
      derSequence(Buffer.alloc(33, 1), Buffer.alloc(32, 2)), // r too long
      Buffer.from([0x30, 0x04, 0x02, 0x00, 0x02, 0x00]), // empty integers
      Buffer.from([0x30, 0x06, 0x04, 0x01, 0x01, 0x02, 0x01, 0x01]), // not an INTEGER
    ];
    for (const der of bad) expect(() => derToJoseSignature(der, 32)).toThrow(/DER/);
  });
});
