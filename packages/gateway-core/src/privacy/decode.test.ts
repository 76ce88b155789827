import { describe, expect, it } from 'vitest';
import { decodedViews } from './decode.js';
import { ENCODED, featuresOf } from './features.js';
import { createPrivacyFilter } from './filter.js';

const { filter } = createPrivacyFilter();
const b64 = (text: string) => Buffer.from(text).toString('base64');
const b64url = (text: string) => Buffer.from(text).toString('base64url');

const mayBeEncoded = (text: string) => (featuresOf(text) & ENCODED) !== 0;

describe('decoded views', () => {
  it('only strings holding a percent escape, an ampersand or a long base64-alphabet run may be encoded', () => {
    expect(mayBeEncoded('Please deliver to the back entrance')).toBe(false);
    expect(mayBeEncoded('50% off, 100%')).toBe(false);
    expect(mayBeEncoded('a%40b')).toBe(true);
    expect(mayBeEncoded('salt & pepper')).toBe(true);
    expect(mayBeEncoded('YWxpY2VAZXhhbXBsZQ')).toBe(true);
    expect(mayBeEncoded('123e4567-e89b-12d3-a456-426614174000')).toBe(false);
    expect(mayBeEncoded('2024-01-15T10:30:45Z')).toBe(false);
  });

  it('decodes URL escapes (UTF-8 runs, + as a space in a second view), entities and base64 text, and maps each character back', () => {
    const [url] = decodedViews('to=alice%40example.com');
    expect(url?.text).toBe('to=alice@example.com');
    expect([url?.start(8), url?.end(8)]).toEqual([8, 11]);
    expect(decodedViews('caf%C3%A9+bar').map((view) => view.text)).toEqual(['café+bar', 'café bar']);
    expect(decodedViews('alice&#64;example&period;com &amp; &#x40; &commat; &bogus;').map((view) => view.text)).toEqual(
      ['alice@example.com & @ @ &bogus;'],
    );
    const [base64] = decodedViews(`id ${b64('alice@example.com')} ok`);
    expect(base64?.text).toBe('id alice@example.com ok');
    expect([base64?.start(5), base64?.end(5)]).toEqual([3, 3 + b64('alice@example.com').length]);
  });

  it('makes no view of base64 that is binary, hex, or mixes the two alphabets, nor of a broken escape', () => {
    expect(
      decodedViews(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0, 1, 1, 1, 0, 72]).toString('base64')),
    ).toEqual([]);
    expect(decodedViews('123e4567-e89b-12d3-a456-426614174000 d41d8cd98f00b204e9800998ecf8427e')).toEqual([]);
    expect(decodedViews('abcdefgh+/ijklmn-_opqr')).toEqual([]);
    expect(decodedViews('100%zz &; &#xZZ;')).toEqual([]);
  });
});

describe('encoded findings redact the encoded original', () => {
  const cases: Array<[string, string]> = [
    ['mailto:alice%40example.com', 'mailto:[REDACTED:email]'],
    [
      'https://shop.example/track?to=alice%40example.com&lang=en',
      'https://shop.example/track?to=[REDACTED:email]&lang=en',
    ],
    ['alice%2540example.com', '[REDACTED:email]'],
    // `+` is a space only in a string that holds percent escapes: elsewhere it is part of an address or a phone number.
    ['q=pay%3A+4111+1111+1111+1111&ok=1', 'q=pay%3A+[REDACTED:card]&ok=1'],
    ['write to alice&#64;example.com', 'write to [REDACTED:email]'],
    ['alice&#x40;example&#46;com', '[REDACTED:email]'],
    ['alice&commat;example&period;com', '[REDACTED:email]'],
    ['alice&amp;#64;example.com', '[REDACTED:email]'],
    [`contact: ${b64('alice@example.com')}.`, 'contact: [REDACTED:email].'],
    [`token ${b64url('{"email":"bob@example.org","n":1}')}`, 'token [REDACTED:email]'],
    [`${b64('card 4111 1111 1111 1111')}`, '[REDACTED:card]'],
    [`${b64('to=alice%40example.com')}`, '[REDACTED:email]'],
  ];
  it.each(cases)('%s', (text, expected) => {
    const { value, redactions } = filter('t', { note: text });
    expect(value).toEqual({ note: expected });
    expect(Object.values(redactions)).toEqual([1]);
  });

  it('leaves base64 and encoded text that holds no finding alone', () => {
    for (const text of [
      b64('Just an ordinary sentence, nothing to see.'),
      b64url('{"page":2,"sort":"name"}'),
      'https://shop.example/search?q=blue%20shoes&size=42',
      'Tom &amp; Jerry &lt;3',
      Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 37) % 256)).toString('base64'),
    ]) {
      expect(filter('t', { note: text })).toEqual({ value: { note: text }, redactions: {} });
    }
  });
});

describe('decoding stays linear', () => {
  it.each([
    ['ampersands', '&'.repeat(1_000_000)],
    ['character references', '&#64;'.repeat(200_000)],
    ['percent escapes and plus signs', '%41+'.repeat(250_000)],
    ['base64 of text', Buffer.from('lorem ipsum dolor '.repeat(40_000)).toString('base64')],
    [
      'base64 of base64 of escapes',
      Buffer.from(Buffer.from('a%26%2364%3B'.repeat(30_000)).toString('base64')).toString('base64'),
    ],
  ])('scans a megabyte of %s in well under two seconds', (_what, text) => {
    const started = performance.now();
    filter('t', text);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
