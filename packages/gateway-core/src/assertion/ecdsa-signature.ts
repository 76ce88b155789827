/**
 * An ECDSA signature as JWS wants it (RFC 7518 3.4): r ‖ s, each a
 * big-endian integer left-padded to `size` bytes (32 for P-256), from the
 * DER `SEQUENCE { INTEGER r, INTEGER s }` that OpenSSL produces.
 *
 * Done here because Node's own `dsaEncoding: 'ieee-p1363'` costs more than
 * the signature itself (P-256 on Node 24 / OpenSSL 3.5: 54 µs against 25 µs
 * for DER). A P-256 signature's DER is at most 72 bytes, so every length is
 * one byte (short form); anything else is not a signature OpenSSL made, and
 * throws rather than send a malformed assertion.
 */
export function derToJoseSignature(der: Uint8Array, size: number): Buffer {
  const raw = Buffer.alloc(2 * size);
  if (der[0] !== 0x30 || der[1] !== der.length - 2) throw malformed();
  const sEnd = copyInteger(der, 2, raw, 0, size);
  if (copyInteger(der, sEnd, raw, size, size) !== der.length) throw malformed();
  return raw;
}

/**
 * Copies the INTEGER at `at` right-aligned into `raw[offset, offset + size)`;
 * returns where the next element starts. DER writes a leading 0x00 only to
 * keep a high first bit from reading as negative, and no other leading zeros.
 */
function copyInteger(der: Uint8Array, at: number, raw: Buffer, offset: number, size: number): number {
  if (der[at] !== 0x02) throw malformed();
  const length = der[at + 1]!;
  let start = at + 2;
  const end = start + length;
  if (length === 0 || length > 0x7f || end > der.length) throw malformed();
  if (der[start] === 0x00 && length > 1) start++;
  if (end - start > size) throw malformed();
  raw.set(der.subarray(start, end), offset + size - (end - start));
  return end;
}

function malformed(): Error {
  return new Error('ECDSA signature is not the DER sequence of two integers');
}
