import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPrivacyFilter } from './filter.js';

/**
 * The false-positive side (issue 16 item 4): what business answers are made
 * of must come back untouched, as strings inside text, as string values and,
 * where it can be one, as a JSON number. A filter that hides order ids or
 * prices makes the answer useless, so these are tests, not hopes.
 */
const { filter } = createPrivacyFilter();

const untouched = (value: unknown) => expect(filter('get_order', value)).toEqual({ value, redactions: {} });

const lookAlikes: Record<string, { strings: string[]; numbers: number[] }> = {
  'order id': {
    strings: [
      '1001',
      'ORD-2024-000123',
      '#100234',
      'A-1001-B',
      '20240115-0042',
      // 16 digits failing Luhn, and a Luhn-valid one that no payment network issues (major industry identifier 1).
      '1234567890123456',
      '1000000000000008',
    ],
    numbers: [1001, 100234, 20240115042, 1234567890123456, 1000000000000008],
  },
  SKU: {
    strings: [
      'KB-100',
      'SKU-12345-BLK',
      'AB12CDEF34567890',
      'WH-1000XM4',
      'ab12-cd34-ef56-gh78',
      'DE-4711-22',
      'EAN 4006381333931',
      'ISBN 978-3-16-148410-0',
    ],
    numbers: [4006381333931, 9783161484100],
  },
  price: {
    strings: ['$1,299.99', '1299.99', '1 299,00 EUR', '€1.299,00', 'USD 10,000,000.00', '-42.50', '0.4111111111111111'],
    // biome-ignore lint/correctness/noPrecisionLoss: kept as written, the value this test has always used (card digits in a price).
    numbers: [1299.99, 0.99, 10_000_000, -42.5, 4111111111111111.5e-3],
  },
  'ISO date': {
    strings: [
      '2024-01-15',
      '2024-01-15T10:30:45Z',
      '2024-01-15T10:30:45.123+02:00',
      '2024-01-15 10:30:45',
      '20240115',
      '2024-W03-1',
      '2024-01-15/2024-02-15',
    ],
    // Dates as numbers: a compact date, seconds, milliseconds (one Luhn-valid), microseconds and nanoseconds since 1970.
    numbers: [20240115, 1700000000, 1700000000000, 1700000000004, 1700000000000000, 1700000000000000000],
  },
  UUID: {
    strings: [
      '123e4567-e89b-12d3-a456-426614174000',
      '123E4567-E89B-12D3-A456-426614174000',
      '123e4567e89b12d3a456426614174000',
      'de89a456-3704-0044-0532-013000aaaaaa',
      '{01890a5d-ac96-774b-bcce-b302099a8057}',
    ],
    numbers: [],
  },
};

describe('never redacted: order ids, SKUs, prices, ISO dates and UUIDs', () => {
  describe.each(Object.entries(lookAlikes))('%s', (_kind, { strings, numbers }) => {
    it.each(strings)('leaves the string %s alone, alone and in a sentence', (text) => {
      untouched(text);
      untouched(`Order placed: ${text}, shipped today.`);
    });

    it.each(strings)('leaves %s alone as a value and as a key', (text) => {
      untouched({ id: text, items: [text], [text]: true });
    });

    if (numbers.length > 0) {
      it.each(numbers)('leaves the number %s alone, whatever its key', (number) => {
        untouched({ id: number, orderId: number, total: number, createdAt: number, items: [number], sku: number });
      });
    }
  });

  it.each([
    'Tom & Jerry, salt & pepper, R&D and Q&A',
    'a = b + c, so x=3 and y = 4',
    'Sort: name=asc&page=2&size=50',
    'https://shop.example/search?q=blue%20shoes&size=42&sort=price',
    'Key: value, token: expired, password: must be at least 8 characters',
    'Use the key=value form; secret=*** and api_key=${API_KEY} are placeholders',
    'token_type=bearer&expires_in=3600&scope=read',
    'E = mc^2 & F = ma; 100% sure, 50%off',
    'internationalization and localization are configurable',
    'See RFC 3986 §2.1: percent-encoding uses %XX, e.g. %20 for a space',
    'Version: react@18.2.0, typescript@latest, node@24',
    'ORD-2024-000123&SKU-12345-BLK=1299.99',
  ])('leaves ordinary text with "=", "&", ":" or "%" alone: %s', (text) => {
    untouched(text);
    untouched({ note: text, [text]: 1 });
  });

  it('leaves the usual non-secret keys and their values alone', () => {
    untouched({
      nextPageToken: 'CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA2',
      maxTokens: 4096,
      passwordUpdatedAt: '2024-01-15',
      hasPassword: true,
      keyboard: 'mechanical',
    });
  });

  it('leaves order ids, SKUs, prices, ISO dates and UUIDs alone as key=value and JSON text', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.date({ min: new Date('1970-01-01'), max: new Date('2199-12-31'), noInvalidDate: true }),
        (uuid, cents, at) => {
          const text = `order=ORD-${cents}&sku=SKU-${cents}-BLK&price=${(cents / 100).toFixed(2)}&date=${at.toISOString()}&id=${uuid}`;
          untouched({
            text,
            json: JSON.stringify({
              orderId: cents,
              sku: `KB-${cents}`,
              total: cents / 100,
              createdAt: at.toISOString(),
              uuid,
            }),
          });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('leaves any UUID alone, with or without dashes, in any case', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.boolean(), fc.boolean(), (uuid, upper, compact) => {
        let text = upper ? uuid.toUpperCase() : uuid;
        if (compact) text = text.replace(/-/g, '');
        untouched({ id: text, note: `ref ${text} ok` });
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves ISO dates and times alone', () => {
    const date = fc.date({ min: new Date('1900-01-01'), max: new Date('2199-12-31'), noInvalidDate: true });
    fc.assert(
      fc.property(date, (at) => {
        const iso = at.toISOString();
        untouched({
          at: iso,
          day: iso.slice(0, 10),
          text: `due ${iso.slice(0, 10)} at ${iso.slice(11, 19)}`,
          ms: at.getTime(),
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves prices alone, as numbers and as text', () => {
    const cents = fc.integer({ min: 0, max: 1_000_000_000_00 });
    fc.assert(
      fc.property(cents, (amount) => {
        const price = amount / 100;
        untouched({
          price,
          text: `$${price.toFixed(2)}`,
          grouped: price.toLocaleString('en-US', { minimumFractionDigits: 2 }),
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves integer ids below a trillion alone, as numbers and as strings, whatever the key', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999 }), (id) => {
        untouched({ id, orderId: id, ref: String(id), items: [id] });
      }),
      { numRuns: 2000 },
    );
  });
});
