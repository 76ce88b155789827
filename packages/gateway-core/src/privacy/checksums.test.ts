import { describe, expect, it } from 'vitest';
import { isCardNumber, passesIbanChecksum, passesLuhn } from './checksums.js';
import { isIban } from './iban.js';

describe('passesLuhn', () => {
  it.each(['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '79927398713'])(
    'accepts %s',
    (digits) => {
      expect(passesLuhn(digits)).toBe(true);
    },
  );

  it.each(['4111111111111112', '1234567890123456', '79927398710'])('rejects %s', (digits) => {
    expect(passesLuhn(digits)).toBe(false);
  });
});

describe('passesIbanChecksum', () => {
  it.each(['DE89370400440532013000', 'GB82WEST12345698765432', 'FR1420041010050500013M02606', 'NL91ABNA0417164300'])(
    'accepts %s',
    (iban) => {
      expect(passesIbanChecksum(iban)).toBe(true);
    },
  );

  it.each(['DE89370400440532013001', 'GB82WEST12345698765433', 'DE89 3704', 'de89370400440532013000'])(
    'rejects %s',
    (iban) => {
      expect(passesIbanChecksum(iban)).toBe(false);
    },
  );
});

describe('isCardNumber', () => {
  it.each([
    '4111111111111111',
    '5555555555554444',
    '2223003122003222',
    '2200000000000004',
    '378282246310005',
    '6011111111111117',
    '4222222222222',
  ])('accepts %s', (digits) => {
    expect(isCardNumber(digits)).toBe(true);
  });

  // Luhn-valid, but a millisecond timestamp, an id of no payment network, too short or too long.
  it.each([
    '1700000000004',
    '1000000000000008',
    '222100000000000',
    '2730000000000003',
    '7000000000000007',
    '79927398713',
    '41111111111111111111',
    '4111111111111112',
  ])('rejects %s', (digits) => {
    expect(isCardNumber(digits)).toBe(false);
  });
});

describe('isIban', () => {
  it.each([
    'DE89370400440532013000',
    'gb82west12345698765432',
    'FR1420041010050500013M02606',
    'NL91ABNA0417164300',
    'NO9386011117947',
  ])('accepts %s', (iban) => {
    expect(isIban(iban)).toBe(true);
  });

  // A valid checksum is not enough: the country must exist and the length be its own.
  it.each([
    'EF85193800121000911D45870C662889',
    'DE8937040044053201300',
    'XX89370400440532013000',
    'DE89370400440532013001',
  ])('rejects %s', (iban) => {
    expect(isIban(iban)).toBe(false);
  });
});
