import { describe, expect, it } from 'vitest';
import { createPrivacyFilter } from './filter.js';

/**
 * The red team's payloads (issue 16) that this filter handles, as the
 * downstream sent them (JSON text, parsed the way the forwarder parses it).
 * Each must come back without the secret, with the kind it was counted as.
 */
const { filter } = createPrivacyFilter();

const payloads: Array<[what: string, json: string, secret: string, kind: string]> = [
  ['a card number stored as a JSON number', '{"cc": 4111111111111111}', '4111111111111111', 'card'],
  ['a card number as a JSON number under a plain key', '{"id": 5555555555554444}', '5555555555554444', 'card'],
  ['a phone number stored as a JSON number', '{"phone": 442079460958}', '442079460958', 'phone'],
  ['a phone number as a bare digit string', '{"mobileNumber": "5551234567"}', '5551234567', 'phone'],
  [
    'a card number with no-break spaces',
    '{"note": "card 4111\\u00a01111\\u00a01111\\u00a01111"}',
    '1111\u00A01111',
    'card',
  ],
  [
    'a card number with thin and narrow no-break spaces',
    '{"note": "4111\\u20091111\\u202f1111\\u20091111"}',
    '4111\u20091111',
    'card',
  ],
  ['a card number with en dashes', '{"note": "4111\\u20131111\\u20131111\\u20131111"}', '4111\u20131111', 'card'],
  ['a card number with a minus sign', '{"note": "4111\\u22121111\\u22121111\\u22121111"}', '4111\u22121111', 'card'],
  [
    'a card number with zero-width characters',
    '{"note": "4111\\u200b1111\\u200c1111\\u200d1111"}',
    '4111\u200B1111',
    'card',
  ],
  ['a card number with a byte-order mark inside', '{"note": "41111111\\ufeff11111111"}', '41111111\uFEFF', 'card'],
  [
    'a card number in full-width digits',
    '{"note": "\\uff14\\uff11\\uff11\\uff11\\uff11\\uff11\\uff11\\uff11\\uff11\\uff11\\uff11\\uff11\\uff11\\uff11\\uff11\\uff11"}',
    '\uFF14\uFF11\uFF11\uFF11',
    'card',
  ],
  ['a lower-case IBAN', '{"account": "de89370400440532013000"}', 'de89370400440532013000', 'iban'],
  ['a dash-grouped IBAN', '{"account": "DE89-3704-0044-0532-0130-00"}', '3704-0044', 'iban'],
  ['a lower-case, dash-grouped IBAN', '{"account": "gb82-west-1234-5698-7654-32"}', 'west-1234', 'iban'],
  ['an SSN without dashes after the word', '{"note": "SSN 123456789"}', '123456789', 'ssn'],
  ['an SSN without dashes under a hinting key', '{"customer_ssn": "123456789"}', '123456789', 'ssn'],
  ['an SSN stored as a JSON number', '{"customerSsn": 123456789}', '123456789', 'ssn'],
  ['an SSN with en dashes', '{"note": "123\\u201345\\u20136789"}', '45\u20136789', 'ssn'],
  [
    'an e-mail address with a full-width domain',
    '{"contact": "alice@\\uff45\\uff58\\uff41\\uff4d\\uff50\\uff4c\\uff45.com"}',
    '\uFF45\uFF58\uFF41',
    'email',
  ],
  [
    'an e-mail address with a full-width at sign and dot',
    '{"contact": "alice\\uff20example\\uff0ecom"}',
    'alice',
    'email',
  ],
  [
    'an e-mail address with a Cyrillic homoglyph domain',
    '{"contact": "alice@\\u0435x\\u0430mple.com"}',
    'alice',
    'email',
  ],
  ['an e-mail address with a Greek homoglyph domain', '{"contact": "bob@ex\\u03b1mple.\\u03bfrg"}', 'bob', 'email'],
  ['an e-mail address on localhost', '{"contact": "alice@localhost"}', 'alice', 'email'],
  ['an e-mail address with an ideographic full stop', '{"contact": "alice@example\\u3002com"}', 'alice', 'email'],
  ['an e-mail address on a punycode domain', '{"contact": "alice@xn--80ak6aa92e.com"}', 'alice', 'email'],
  ['a URL-encoded e-mail address', '{"link": "mailto:alice%40example.com"}', 'alice', 'email'],
  ['a doubly URL-encoded e-mail address', '{"link": "alice%2540example.com"}', 'alice', 'email'],
  ['a base64-encoded e-mail address', '{"ref": "YWxpY2VAZXhhbXBsZS5jb20="}', 'YWxpY2VAZXhhbXBsZS5jb20', 'email'],
  [
    'a base64url-encoded JSON object holding an e-mail address',
    '{"state": "eyJlbWFpbCI6ImFsaWNlQGV4YW1wbGUuY29tIn0"}',
    'eyJlbWFpbCI6ImFsaWNlQGV4YW1wbGUuY29tIn0',
    'email',
  ],
  [
    'an e-mail address written with a decimal character reference',
    '{"html": "<a>alice&#64;example.com</a>"}',
    'alice',
    'email',
  ],
  ['an e-mail address written with a hex character reference', '{"html": "alice&#x40;example.com"}', 'alice', 'email'],
  [
    'an e-mail address written with named character references',
    '{"html": "alice&commat;example&period;com"}',
    'alice',
    'email',
  ],
  ['password=hunter2 inside a string', '{"log": "login attempt user=bob password=hunter2"}', 'hunter2', 'credential'],
  [
    'a password in JSON quoted inside a string',
    '{"body": "{\\"username\\":\\"bob\\",\\"password\\":\\"hunter2\\"}"}',
    'hunter2',
    'credential',
  ],
  ['a password under a key nobody listed', '{"dbPassword": "hunter2"}', 'hunter2', 'credential'],
];

describe('red-team payloads (issue 16)', () => {
  it.each(payloads)('%s', (_what, json, secret, kind) => {
    const { value, redactions } = filter('get_customer', JSON.parse(json));
    expect(JSON.stringify(value)).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(JSON.stringify(value)).toContain(`[REDACTED:${kind}]`);
    expect(redactions).toEqual({ [kind]: 1 });
  });
});
