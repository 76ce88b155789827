import { describe, expect, it } from 'vitest';
import { passesLuhn } from './checksums.js';
import { DETECTOR_NAMES } from './detectors.js';
import { createPrivacyFilter } from './filter.js';

const { filter } = createPrivacyFilter();
const scan = (text: string) => filter('any_tool', text);

/** Each detector: texts it must redact (with what stays around them) and look-alikes it must leave alone. */
const cases: Record<string, { found: [string, string][]; ignored: string[] }> = {
  email: {
    found: [
      ['write to alice.smith+orders@example.co.uk today', 'write to [REDACTED:email] today'],
      ['<bob_99@mail.example.com>', '<[REDACTED:email]>'],
      // Dotless hosts (issue 16): an address on the machine or the intranet.
      ['mail alice@localhost.', 'mail [REDACTED:email].'],
      ['root@mailhost: disk full', '[REDACTED:email]: disk full'],
      ['x@y', '[REDACTED:email]'],
      ['http://alice@localhost:8080/', 'http://[REDACTED:email]:8080/'],
      // Internationalised: Unicode local part and domain, IDN and punycode TLDs.
      ['josé.garcía@correo.españa.es', '[REDACTED:email]'],
      ['пользователь@пример.рф', '[REDACTED:email]'],
      ['用户@例子.中国', '[REDACTED:email]'],
      ['alice@xn--80ak6aa92e.xn--p1ai', '[REDACTED:email]'],
    ],
    ignored: [
      '@handle on social',
      'a @ b.com',
      'price: 2@3.00',
      // A version, a release tag, a digest, a git ref, a scoped package.
      'npm i lodash@4.17.21',
      'pin react@latest or typescript@next',
      'image@sha256:0123456789abcdef',
      'stash@{0}',
      'npm i @tollgate/gateway-core@workspace:*',
      'pkg@v1.2.3',
    ],
  },
  phone: {
    found: [
      ['call +44 20 7946 0958 now', 'call [REDACTED:phone] now'],
      ['+1 (555) 123-4567', '[REDACTED:phone]'],
      ['+44 (0)20 7946 0958', '[REDACTED:phone]'],
      ['+49.30.901820', '[REDACTED:phone]'],
      ['(555) 123-4567', '[REDACTED:phone]'],
      ['555-123-4567.', '[REDACTED:phone].'],
      ['020 7946 0958', '[REDACTED:phone]'],
      ['tel: 06 12 34 56 78', 'tel: [REDACTED:phone]'],
      ['+44 20 7946 0958 2024-01-15', '[REDACTED:phone] 2024-01-15'],
    ],
    ignored: [
      'order 1234567890 shipped',
      'id 20240115',
      'year 2024',
      'placed 2024-01-15 at 10:30:45',
      'due 15.01.2024 or 01-15-2024 or 01/15/2024',
      'price $1299.99, was 1 299,00 EUR',
      'total 10 000 000 units',
      'ISBN 978-3-16-148410-0',
      'temperature +5.00 degrees',
      'version 10.2.3',
      'timestamp 1700000000000',
      '123-456-789',
    ],
  },
  card: {
    found: [
      ['visa 4111111111111111.', 'visa [REDACTED:card].'],
      ['4111 1111 1111 1111', '[REDACTED:card]'],
      ['4111 1111 1111 1111 0', '[REDACTED:card] 0'],
      ['5555-5555-5555-4444', '[REDACTED:card]'],
      ['amex 3782 822463 10005', 'amex [REDACTED:card]'],
      ['378282246310005', '[REDACTED:card]'],
      // Evasions folded before detection; the redaction covers the original characters.
      ['visa 4111\u00A01111\u00A01111\u00A01111 ok', 'visa [REDACTED:card] ok'],
      ['4111\u20131111\u20131111\u20131111', '[REDACTED:card]'],
      ['x 4111\u200B1111\u200C1111\u200D1111\uFEFF y', 'x [REDACTED:card]\uFEFF y'],
      [
        '\uFF14\uFF11\uFF11\uFF11 \uFF11\uFF11\uFF11\uFF11 \uFF11\uFF11\uFF11\uFF11 \uFF11\uFF11\uFF11\uFF11.',
        '[REDACTED:card].',
      ],
      ['5555\u202F5555\u20095555\u202F4444', '[REDACTED:card]'],
      ['caf\u00E9 5555\u22125555\u22125555\u22124444 \u00E9', 'caf\u00E9 [REDACTED:card] \u00E9'],
      ['4111 1111-1111\u00A01111', '[REDACTED:card]'],
    ],
    ignored: [
      'order 1234567890123456',
      '1000000000000008',
      '4111\u00A01111\u00A01111\u00A01112',
      '4111111111111112',
      '4111 1111 1111 111',
      'ratio 0.4111111111111111',
      'ab4111111111111111',
    ],
  },
  ssn: {
    found: [
      ['SSN 123-45-6789 on file', 'SSN [REDACTED:ssn] on file'],
      ['123\u201345\u20136789', '[REDACTED:ssn]'],
      // Without dashes only right after the word.
      ['SSN: 123456789', 'SSN: [REDACTED:ssn]'],
      ['ssn 123 45 6789.', 'ssn [REDACTED:ssn].'],
      ['Social Security No. 123456789', 'Social Security No. [REDACTED:ssn]'],
      ['SSN on file: \uFF11\uFF12\uFF13\uFF14\uFF15\uFF16\uFF17\uFF18\uFF19', 'SSN on file: [REDACTED:ssn]'],
    ],
    ignored: [
      'order 123456789',
      'SSN: 000123456',
      'SSN: 1234567890',
      'SSN pending, order 123456789 shipped',
      'classname 123456789',
      '000-12-3456',
      '666-12-3456',
      '912-34-5678',
      '123-00-4567',
      '123-45-0000',
      '123-45-67890',
      'part 2023-45-6789',
    ],
  },
  iban: {
    found: [
      ['pay DE89370400440532013000 now', 'pay [REDACTED:iban] now'],
      ['GB82 WEST 1234 5698 7654 32', '[REDACTED:iban]'],
      ['AT61 1904 3002 3457 3201 BANK', '[REDACTED:iban] BANK'],
      // A group-shaped word before the IBAN made one refused candidate that hid it (found by fast-check).
      ['AA00 DE89370400440532013000 ', 'AA00 [REDACTED:iban] '],
      ['iban de89370400440532013000.', 'iban [REDACTED:iban].'],
      ['gb82 west 1234 5698 7654 32', '[REDACTED:iban]'],
      ['DE89-3704-0044-0532-0130-00 paid', '[REDACTED:iban] paid'],
      ['NL91\u2013ABNA\u20130417\u20131643\u201300', '[REDACTED:iban]'],
      ['DE89\u00A03704\u00A00044\u00A00532\u00A00130\u00A000', '[REDACTED:iban]'],
    ],
    ignored: [
      'DE89370400440532013001',
      'SKU AB12CDEF34567890',
      'GB82 WEST 1234 5698 7654 33',
      'EF85193800121000911D45870C662889',
      'ef851938-0012-1000-911d-45870c662889',
    ],
  },
  ipv4: {
    found: [
      ['from 192.168.1.10 at', 'from [REDACTED:ipv4] at'],
      ['net 10.0.0.0/8', 'net [REDACTED:ipv4]/8'],
    ],
    ignored: ['version 1.2.3', 'v1.2.3.4', '256.1.1.1', '1.2.3.4.5', '3.14159'],
  },
  ipv6: {
    found: [
      ['host 2001:db8::8a2e:370:7334 up', 'host [REDACTED:ipv6] up'],
      ['::1', '[REDACTED:ipv6]'],
      ['fe80::1%eth0', '[REDACTED:ipv6]%eth0'],
      ['2001:0db8:85a3:0000:0000:8a2e:0370:7334', '[REDACTED:ipv6]'],
    ],
    ignored: ['at 12:30:45', 'std::vector', 'ratio 1:2', 'mac 00:1A:2B:3C:4D:5E', 'a :: b'],
  },
  jwt: {
    found: [
      [
        'token=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U&x=1',
        'token=[REDACTED:jwt]&x=1',
      ],
      // A payload that is not JSON, and an unsigned token (`alg: none`, empty signature).
      ['id eyJhbGciOiJFUzI1NiJ9.aGVsbG8gd29ybGQ.c2ln ok', 'id [REDACTED:jwt] ok'],
      ['eyJhbGciOiJub25lIn0.eyJzdWIiOiJib2IifQ.', '[REDACTED:jwt]'],
    ],
    // Headers that are no JWT header: no `alg`, not JSON.
    ignored: [
      'eyJ alone',
      'eyJhbGci.notajwt',
      'eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiJib2IifQ.c2ln',
      'eyJhbGciOiJIUzI1.eyJzdWIi.c2ln',
    ],
  },
  'api-key': {
    found: [
      ['key sk-proj-abcdefghijklmnopqrstuvwxyz012345', 'key [REDACTED:api-key]'],
      ['sk_live_abcdefghijklmnop1234', '[REDACTED:api-key]'],
      ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', '[REDACTED:api-key]'],
      ['AKIAIOSFODNN7EXAMPLE', '[REDACTED:api-key]'],
      ['xoxb-123456789012-abcdefghij', '[REDACTED:api-key]'],
      ['AIzaSyA1234567890abcdefghijklmnopqrstuv', '[REDACTED:api-key]'],
      ['ASIAY34FZKBOKMUTVV7A', '[REDACTED:api-key]'],
      ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', '[REDACTED:api-key]'],
      ['xoxp-1234567890-abcdefghij', '[REDACTED:api-key]'],
      ['rk_live_abcdefghijklmnop1234', '[REDACTED:api-key]'],
      ['key sk-ant-api03-abcdefghijklmnopqrstuvwxyz', 'key [REDACTED:api-key]'],
      ['glpat-abcdefghij0123456789', '[REDACTED:api-key]'],
      ['npm_abcdefghijklmnopqrstuvwxyz0123456789', '[REDACTED:api-key]'],
      ['SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', '[REDACTED:api-key]'],
    ],
    ignored: ['task-list', 'sk-short', 'ghp_short', 'AKIA', 'xoxo'],
  },
  bearer: {
    found: [
      ['Authorization: Bearer abc123def456ghi', 'Authorization: [REDACTED:bearer]'],
      ['bearer 0123456789', '[REDACTED:bearer]'],
    ],
    ignored: ['the bearer instrument', 'Bearer bonds', 'Bearer'],
  },
  credential: {
    found: [
      ['password=hunter2', 'password=[REDACTED:credential]'],
      ['?user=bob&password=hunter2&lang=en', '?user=bob&password=[REDACTED:credential]&lang=en'],
      ['pwd: letmein', 'pwd: [REDACTED:credential]'],
      ['Password: hunter2 and more', 'Password: [REDACTED:credential] and more'],
      ['DB_PASSWORD=s3cr3t!', 'DB_PASSWORD=[REDACTED:credential]'],
      ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AWS_SECRET_ACCESS_KEY=[REDACTED:credential]'],
      ['{"password": "correct horse battery staple"}', '{"password": "[REDACTED:credential]"}'],
      ["client_secret='Zm9vYmFyYmF6cXV4'", "client_secret='[REDACTED:credential]'"],
      ['api_key = 4f3c2b1a9e8d7c6b', 'api_key = [REDACTED:credential]'],
      ['x-api-key: Abc123Def456', 'x-api-key: [REDACTED:credential]'],
      ['access_token=ya29.a0AfH6SMBx', 'access_token=[REDACTED:credential]'],
      ['secret: Tr0ub4dor&3', 'secret: [REDACTED:credential]'],
      ['PIN: 4921', 'PIN: [REDACTED:credential]'],
      ['user=bob&pass=hunter2', 'user=bob&pass=[REDACTED:credential]'],
    ],
    ignored: [
      'password: must be at least 8 characters',
      'Forgot your password? Reset it: settings',
      'token: expired',
      'max_tokens=4096',
      'nextPageToken=CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA2',
      'page_token=CiAKGjBpNDd2Nmp2',
      'password=***',
      'api_key=${API_KEY}',
      'password: <your password>',
      'secret=[REDACTED:field]',
      'token_type=bearer',
      'bypass=on',
      'keyboard: mechanical',
      'passwordHint=pet name',
      'shipping: 2 days',
      'Pass: 12, Fail: 3',
      'compass: 270',
    ],
  },
};

describe('built-in detectors', () => {
  it('covers every detector', () => {
    expect(Object.keys(cases).sort()).toEqual([...DETECTOR_NAMES].sort());
  });

  describe.each(Object.entries(cases))('%s', (kind, { found, ignored }) => {
    it.each(found)('redacts %s', (text, expected) => {
      const result = scan(text);
      expect(result.value).toBe(expected);
      expect(Object.keys(result.redactions)).toEqual([kind]);
    });

    it.each(ignored)('leaves %s alone', (text) => {
      expect(scan(text)).toEqual({ value: text, redactions: {} });
    });
  });

  it('leaves a 16-digit order id that fails Luhn and redacts a valid card in a nested array', () => {
    expect(passesLuhn('1234567890123456')).toBe(false);
    const response = { orders: [{ id: '1234567890123456', payments: [['visa', '4111 1111 1111 1111']] }] };
    expect(filter('get_order', response)).toEqual({
      value: { orders: [{ id: '1234567890123456', payments: [['visa', '[REDACTED:card]']] }] },
      redactions: { card: 1 },
    });
  });

  it('redacts a bearer JWT once, not as two overlapping secrets', () => {
    const text = 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    expect(scan(text)).toEqual({ value: '[REDACTED:bearer]', redactions: { bearer: 1 } });
  });

  it('counts every occurrence', () => {
    expect(scan('a@example.com, b@example.com; 192.168.0.1').redactions).toEqual({ email: 2, ipv4: 1 });
  });
});
