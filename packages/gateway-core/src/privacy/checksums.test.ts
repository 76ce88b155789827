import { describe, expect, it } from 'vitest';
import { passesIbanChecksum, passesLuhn } from './checksums.js';

describe('passesLuhn', () => {
  it.each(['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '79927398713'])('accepts %s', (digits) => {
    expect(passesLuhn(digits)).toBe(true);
  });

  it.each(['4111111111111112', '1234567890123456', '79927398710'])('rejects %s', (digits) => {
    expect(passesLuhn(digits)).toBe(false);
  });
});

describe('passesIbanChecksum', () => {
  it.each(['DE89370400440532013000', 'GB82WEST12345698765432', 'FR1420041010050500013M02606', 'NL91ABNA0417164300'])('accepts %s', (iban) => {
    expect(passesIbanChecksum(iban)).toBe(true);
  });

  it.each(['DE89370400440532013001', 'GB82WEST12345698765433', 'DE89 3704', 'de89370400440532013000'])('rejects %s', (iban) => {
    expect(passesIbanChecksum(iban)).toBe(false);
  });
});
