import { describe, expect, it } from 'vitest';
import { DETECTOR_NAMES, type DetectorName } from './detectors.js';
import { keyHint } from './field-names.js';
import { hintedStringKind, numberKind } from './hinted-values.js';
import { createPrivacyFilter } from './filter.js';

const all: ReadonlySet<DetectorName> = new Set(DETECTOR_NAMES);

describe('keyHint', () => {
  it.each([
    ['cc', 'card'],
    ['CC', 'card'],
    ['ccNumber', 'card'],
    ['CCNumber', 'card'],
    ['credit_card_number', 'card'],
    ['creditcard', 'card'],
    ['cards', 'card'],
    ['phone', 'phone'],
    ['homePhone', 'phone'],
    ['phone_numbers', 'phone'],
    ['Mobile-No', 'phone'],
    ['tel', 'phone'],
    ['customer_ssn', 'ssn'],
    ['socialSecurityNumber', 'ssn'],
    ['social_security', 'ssn'],
  ])('%s hints %s', (key, hint) => {
    expect(keyHint(key)).toBe(hint);
  });

  // They name something about the card or phone, or hold the letters by chance.
  it.each([
    'cardId',
    'phoneVerified',
    'phoneCount',
    'account',
    'success',
    'ssnLast4',
    'classname',
    'number',
    'id',
    'telemetry',
    'cancelled',
  ])('%s hints nothing', (key) => {
    expect(keyHint(key)).toBeUndefined();
  });
});

describe('numberKind', () => {
  it.each<[number, Parameters<typeof numberKind>[1], DetectorName]>([
    [4111111111111111, undefined, 'card'],
    [5555555555554444, undefined, 'card'],
    [378282246310005, undefined, 'card'],
    [1000000000000008, 'card', 'card'],
    [4222222222222, 'card', 'card'],
    [442079460958, 'phone', 'phone'],
    [5551234567, 'phone', 'phone'],
    [123456789, 'ssn', 'ssn'],
    [12345678, 'ssn', 'ssn'],
  ])('%s under a %s key is a %s number', (value, hint, kind) => {
    expect(numberKind(value, hint, all)).toBe(kind);
  });

  it.each<[number, Parameters<typeof numberKind>[1]]>([
    [4111111111111112, 'card'],
    [4222222222222, undefined],
    [1700000000004, undefined],
    [1000000000000008, undefined],
    [5551234567, undefined],
    [123456789, undefined],
    [12345, 'phone'],
    [1234567890123456, 'phone'],
    [666123456, 'ssn'],
    [4111111111111111.5, undefined],
    [-4111111111111111, undefined],
    [1e25, 'card'],
  ])('%s under a %s key is nothing', (value, hint) => {
    expect(numberKind(value, hint, all)).toBeUndefined();
  });

  it('finds only the detectors that are on', () => {
    expect(numberKind(4111111111111111, undefined, new Set(['phone']))).toBeUndefined();
    expect(numberKind(5551234567, 'phone', new Set(['card']))).toBeUndefined();
  });
});

describe('hintedStringKind', () => {
  it.each<[string, Parameters<typeof hintedStringKind>[1], DetectorName]>([
    ['5551234567', 'phone', 'phone'],
    ['+442079460958', 'phone', 'phone'],
    ['555.123.4567', 'phone', 'phone'],
    ['123456789', 'ssn', 'ssn'],
    ['123 45 6789', 'ssn', 'ssn'],
    ['4111.1111.1111.1111', 'card', 'card'],
  ])('%s under a %s key is a %s number', (text, hint, kind) => {
    expect(hintedStringKind(text, hint, all)).toBe(kind);
  });

  it.each<[string, Parameters<typeof hintedStringKind>[1]]>([
    ['ext 12', 'phone'],
    ['12345', 'phone'],
    ['unknown', 'phone'],
    ['000-12-3456', 'ssn'],
    ['12345678', 'ssn'],
    ['1234 5678 9012 3456', 'card'],
    ['visa', 'card'],
  ])('%s under a %s key is nothing', (text, hint) => {
    expect(hintedStringKind(text, hint, all)).toBeUndefined();
  });
});

describe('createPrivacyFilter: JSON numbers and key hints', () => {
  const { filter } = createPrivacyFilter();

  it('redacts a card number stored as a JSON number, under any key, as the marker string', () => {
    expect(filter('t', { cc: 4111111111111111, id: 5555555555554444, ref: 1234567890123456 })).toEqual({
      value: { cc: '[REDACTED:card]', id: '[REDACTED:card]', ref: 1234567890123456 },
      redactions: { card: 2 },
    });
  });

  it('redacts phone and SSN numbers and bare digit strings under keys that name them, in arrays too', () => {
    const response = {
      customer: {
        homePhone: 5551234567,
        phones: ['5551234568', 442079460958],
        customer_ssn: 123456789,
        taxRef: '123456789',
      },
      counts: { phoneCount: 5551234567, cardId: 4242424242 },
    };
    expect(filter('t', response)).toEqual({
      value: {
        customer: {
          homePhone: '[REDACTED:phone]',
          phones: ['[REDACTED:phone]', '[REDACTED:phone]'],
          customer_ssn: '[REDACTED:ssn]',
          taxRef: '123456789',
        },
        counts: { phoneCount: 5551234567, cardId: 4242424242 },
      },
      redactions: { phone: 3, ssn: 1 },
    });
  });

  it('does not carry a hint into a nested object', () => {
    const response = { phone: { id: 5551234567, label: 'home' } };
    expect(filter('t', response).value).toBe(response);
  });

  it('respects disabled detectors for numbers', () => {
    const noCards = createPrivacyFilter({ disabledDetectors: ['card', 'phone'] });
    const response = { cc: 4111111111111111, phone: 5551234567 };
    expect(noCards.filter('t', response).value).toBe(response);
  });
});
