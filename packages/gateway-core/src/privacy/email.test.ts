import { describe, expect, it } from 'vitest';
import { acceptEmail } from './email.js';

/** acceptEmail as written before its ASCII fast paths: Unicode patterns only. */
function unicodeOnly(match: string): number {
  const at = match.lastIndexOf('@');
  const local = match.slice(0, at);
  const domain = match.slice(at + 1);
  if (!/[\p{L}\p{N}]/u.test(local)) return 0;
  const dot = domain.lastIndexOf('.');
  if (dot < 0)
    return /^(?:latest|next|beta|alpha|canary|rc|nightly|stable|experimental|insiders|lts|legacy|edge|dev|main|master|head|sha\d*|md5|blake\d*)$/i.test(
      domain,
    )
      ? 0
      : match.length;
  return /^(?:\p{L}[\p{L}\p{M}]{1,62}|xn--[a-z0-9-]{2,59})$/iu.test(domain.slice(dot + 1)) ? match.length : 0;
}

describe('acceptEmail', () => {
  const locals = ['alice', 'A', '7', '._%+-', '..', 'josé', 'пользователь', '\u0011', '_', 'Z9', '\u0301', '١٢'];
  const domains = [
    'example.com',
    'EXAMPLE.COM',
    'example.c',
    'example.c0m',
    'x.xn--p1ai',
    'пример.рф',
    'a.b.co',
    'localhost',
    'latest',
    'sha256',
    'ex.' + 'a'.repeat(63),
    'ex.' + 'a'.repeat(64),
    'ex.é',
    'ex.e\u0301e',
    'ex.[',
    'ex.`a',
  ];

  it('takes what the Unicode patterns alone take: ASCII shortcuts, same answers', () => {
    for (const local of locals) {
      for (const domain of domains) {
        const match = `${local}@${domain}`;
        expect(acceptEmail(match), match).toBe(unicodeOnly(match));
      }
    }
  });
});
