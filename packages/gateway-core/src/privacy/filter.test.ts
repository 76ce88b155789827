import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { DEFAULT_REDACTED_FIELDS } from './field-names.js';
import { createPrivacyFilter, MAX_FILTER_DEPTH } from './filter.js';

const defaults = createPrivacyFilter();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe('createPrivacyFilter: field rules', () => {
  it('redacts the values of default fields at any depth, whatever their spelling', () => {
    const response = {
      user: {
        name: 'Ann',
        Password: 'hunter2',
        profile: { date_of_birth: '1990-01-01', 'Date-Of-Birth': '1990-01-01' },
      },
      sessions: [{ accessToken: 'opaque', refresh_token: 'opaque', API_KEY: 'opaque' }],
      card: { cardNumber: 4111111111111111, cvv: 123 },
      creditCard: { number: '4111', expiry: '12/30' },
    };
    expect(defaults.filter('get_user', response)).toEqual({
      value: {
        user: {
          name: 'Ann',
          Password: '[REDACTED:field]',
          profile: { date_of_birth: '[REDACTED:field]', 'Date-Of-Birth': '[REDACTED:field]' },
        },
        sessions: [{ accessToken: '[REDACTED:field]', refresh_token: '[REDACTED:field]', API_KEY: '[REDACTED:field]' }],
        card: { cardNumber: '[REDACTED:field]', cvv: '[REDACTED:field]' },
        creditCard: '[REDACTED:field]',
      },
      redactions: { field: 9 },
    });
  });

  it('matches names exactly, so pagination tokens and token counts stay', () => {
    const response = { nextPageToken: 'cursor-2', tokenCount: 12, secretary: 'Bob', password: null };
    expect(defaults.filter('list', response)).toEqual({ value: response, redactions: {} });
  });

  it('adds configured fields to the defaults', () => {
    const filter = createPrivacyFilter({ fields: ['internal_note'] });
    expect(filter.filter('t', { items: [{ internalNote: 'vip', password: 'x', note: 'ok' }] }).value).toEqual({
      items: [{ internalNote: '[REDACTED:field]', password: '[REDACTED:field]', note: 'ok' }],
    });
  });

  it('has a default list covering credentials, identity and payment fields', () => {
    for (const name of ['password', 'secret', 'token', 'apiKey', 'ssn', 'dateOfBirth', 'cardNumber', 'cvv', 'iban']) {
      expect(DEFAULT_REDACTED_FIELDS).toContain(name);
    }
  });
});

describe('createPrivacyFilter: values and keys', () => {
  it('scans object keys too, keeping colliding redacted keys apart', () => {
    const response = { byEmail: { 'ann@example.com': { orders: 2 }, 'bob@example.com': { orders: 5 } } };
    expect(defaults.filter('t', response)).toEqual({
      value: { byEmail: { '[REDACTED:email]': { orders: 2 }, '[REDACTED:email]#2': { orders: 5 } } },
      redactions: { email: 2 },
    });
  });

  it('leaves numbers that are no card numbers, booleans and null alone', () => {
    const response = {
      id: 1234567890123456,
      at: 1700000000004,
      price: 1299.99,
      ok: true,
      none: null,
      phone: 42,
      ssn_count: 123456789,
    };
    expect(defaults.filter('t', response).value).toBe(response);
  });

  it('applies configured rules with their replacement', () => {
    const filter = createPrivacyFilter({
      rules: [{ name: 'employee-id', pattern: 'EMP-(\\d{2})\\d{4}', replacement: 'EMP-$1****' }],
    });
    expect(filter.filter('t', ['EMP-123456', 'EMP-12'])).toEqual({
      value: ['EMP-12****', 'EMP-12'],
      redactions: { 'employee-id': 1 },
    });
  });

  it('runs configured rules on the folded text and redacts the original characters', () => {
    const filter = createPrivacyFilter({ rules: [{ name: 'employee-id', pattern: 'EMP-\\d{6}' }] });
    expect(filter.filter('t', 'by EMP\u2010\uFF11\uFF12\u200B3456 today')).toEqual({
      value: 'by [REDACTED:employee-id] today',
      redactions: { 'employee-id': 1 },
    });
  });

  it('replaces what is nested deeper than the limit instead of walking it', () => {
    let deep: unknown = 'a@example.com';
    for (let i = 0; i < MAX_FILTER_DEPTH + 10; i++) deep = [deep];
    const result = defaults.filter('t', deep);
    expect(JSON.stringify(result.value)).not.toContain('example.com');
    expect(result.redactions).toEqual({ depth: 1 });
  });

  it('keeps a "__proto__" key as a key', () => {
    const response = JSON.parse('{"__proto__": {"email": "a@example.com"}}');
    const { value } = defaults.filter('t', response);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"email":"[REDACTED:email]"}}');
  });
});

describe('createPrivacyFilter: purity', () => {
  it('never mutates its input and shares what it did not change', () => {
    const untouched = { name: 'Widget', tags: ['a', 'b'] };
    const response = deepFreeze({ product: untouched, owner: { email: 'ann@example.com' } });
    const snapshot = structuredClone(response);
    const { value } = defaults.filter('t', response) as { value: typeof response };
    expect(response).toEqual(snapshot);
    expect(value.product).toBe(untouched);
    expect(value.owner).toEqual({ email: '[REDACTED:email]' });
  });

  it('returns the input itself when nothing is redacted', () => {
    const response = { items: [{ id: 1, name: 'Widget', note: 'ships 2024-01-15' }] };
    expect(defaults.filter('t', response).value).toBe(response);
  });
});

describe('createPrivacyFilter: per-tool overrides', () => {
  const filter = createPrivacyFilter({
    tools: {
      list_products: { enabled: false },
      get_customer: { fields: ['notes'], disabledDetectors: ['phone'] },
    },
  });
  const response = { email: 'ann@example.com', phone: '+44 20 7946 0958', notes: 'likes tea', password: 'x' };

  it('returns a disabled tool response unfiltered', () => {
    expect(filter.filter('list_products', response)).toEqual({ value: response, redactions: {} });
  });

  it('adds a tool fields and turns off its disabled detectors for that tool only', () => {
    expect(filter.filter('get_customer', response).value).toEqual({
      email: '[REDACTED:email]',
      phone: '+44 20 7946 0958',
      notes: '[REDACTED:field]',
      password: '[REDACTED:field]',
    });
    expect(filter.filter('get_order', response).value).toEqual({
      email: '[REDACTED:email]',
      phone: '[REDACTED:phone]',
      notes: 'likes tea',
      password: '[REDACTED:field]',
    });
  });

  it('filters a tool that is enabled while privacy is off globally', () => {
    const onlyOne = createPrivacyFilter({ enabled: false, tools: { get_customer: { enabled: true } } });
    expect(onlyOne.filter('get_order', response).value).toBe(response);
    expect(onlyOne.filter('get_customer', response).redactions).toEqual({ email: 1, phone: 1, field: 1 });
  });

  it('refuses an invalid configuration', () => {
    expect(() => createPrivacyFilter({ disabledDetectors: ['cards' as 'card'] })).toThrow(ConfigError);
  });
});

describe('createPrivacyFilter: properties', () => {
  const configured = createPrivacyFilter({ fields: ['note'], rules: [{ name: 'ref', pattern: 'REF-[0-9]+' }] });

  it('never throws and always returns JSON-serializable output', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, tool) => {
        for (const filter of [defaults, configured]) {
          const result = filter.filter(tool, value);
          const text = JSON.stringify(result.value);
          expect(typeof text === 'string' || value === undefined).toBe(true);
          expect(JSON.parse(text ?? 'null')).toEqual(JSON.parse(text ?? 'null'));
          for (const count of Object.values(result.redactions)) expect(count).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never lets a planted secret through, whatever surrounds it', () => {
    const planted = fc.constantFrom(
      'zed.planted@example.org',
      '4111 1111 1111 1111',
      '5555555555554444',
      'DE89370400440532013000',
      '123-45-6789',
      '+44 20 7946 0958',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    );
    const withSecret = fc
      .tuple(fc.jsonValue(), planted, fc.string(), fc.string())
      .map(([value, secret, before, after]) => ({
        secret,
        value: { data: value, nested: [{ text: `${before} ${secret} ${after}` }] },
      }));
    fc.assert(
      fc.property(withSecret, ({ secret, value }) => {
        expect(JSON.stringify(defaults.filter('t', value).value)).not.toContain(secret);
      }),
      { numRuns: 1000 },
    );
  });
});
