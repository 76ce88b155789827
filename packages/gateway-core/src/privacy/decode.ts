import { hasBase64Run } from './features.js';
import { mapBack, type Changes, type Folded } from './normalise.js';

/**
 * Encoded views of a string, for the detectors to look at as well as the
 * string itself: URL-encoding (`alice%40example.com`, `4111+1111+…` in a
 * query), HTML character references (`alice&#64;example.com`, `&commat;`,
 * `&#x40;`) and base64 runs that decode to text (`YWxpY2VAZXhhbXBsZS5jb20=`).
 * Each view maps its characters back like a fold does: a decoded `%40` or
 * `&#64;` to the escape it came from, so a finding redacts exactly the
 * encoded characters; every character of a decoded base64 run to the whole
 * run, which is redacted whole (a part of it would still decode to a part of
 * the secret).
 *
 * Only strings holding `%`, `&` or a base64-alphabet run of 16 or more
 * characters (the `ENCODED` feature, see `features.ts`) are decoded at all,
 * and a view is made only when decoding changes something.
 */

/**
 * Shortest base64 run decoded: 16 characters (12 bytes). Shorter runs are
 * mostly words and ids; a secret shorter than 12 bytes (`bo@ex.io`) encoded
 * on its own is missed.
 */
const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const PERCENT = /%[0-9A-Fa-f]{2}/;
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const ENTITY = /&(?:#(\d{1,7});?|#[xX]([0-9A-Fa-f]{1,6});?|([A-Za-z][A-Za-z0-9]{1,31});)/g;

/** The named references that can spell out something the detectors look for (and the common ones). */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00A0',
  commat: '@',
  period: '.',
  lowbar: '_',
  UnderBar: '_',
  hyphen: '\u2010',
  dash: '\u2010',
  ndash: '\u2013',
  mdash: '\u2014',
  minus: '\u2212',
  plus: '+',
  equals: '=',
  colon: ':',
  sol: '/',
  bsol: '\\',
  num: '#',
  percnt: '%',
  excl: '!',
  quest: '?',
  comma: ',',
  semi: ';',
  lpar: '(',
  rpar: ')',
  lsqb: '[',
  rsqb: ']',
  lbrack: '[',
  rbrack: ']',
  lcub: '{',
  rcub: '}',
  lbrace: '{',
  rbrace: '}',
  ast: '*',
  dollar: '$',
  verbar: '|',
  vert: '|',
  Tab: '\t',
  NewLine: '\n',
  thinsp: '\u2009',
  ensp: '\u2002',
  emsp: '\u2003',
  zwsp: '\u200B',
  ZeroWidthSpace: '\u200B',
  zwj: '\u200D',
  zwnj: '\u200C',
  shy: '\u00AD',
};

/** The views of `text` that differ from it, each with its map back to `text`. */
export function decodedViews(text: string): Folded[] {
  const views: Folded[] = [];
  if (text.includes('%') && PERCENT.test(text)) {
    pushView(views, text, urlEdits(text, false));
    if (text.includes('+')) pushView(views, text, urlEdits(text, true));
  }
  if (text.includes('&')) pushView(views, text, entityEdits(text));
  if (hasBase64Run(text)) pushView(views, text, base64Edits(text));
  return views;
}

/** A span of the original and what it decodes to; in order, not overlapping. */
type Edit = [from: number, to: number, decoded: string];

function pushView(views: Folded[], text: string, edits: Edit[]): void {
  if (edits.length === 0) return;
  const changes: Changes = { at: [], atEnd: [], from: [], to: [] };
  let output = '';
  let copied = 0;
  for (const [from, to, decoded] of edits) {
    output += text.slice(copied, from);
    changes.at.push(output.length);
    output += decoded;
    changes.atEnd.push(output.length);
    changes.from.push(from);
    changes.to.push(to);
    copied = to;
  }
  output += text.slice(copied);
  views.push({ text: output, start: (i) => mapBack(changes, i, 0), end: (i) => mapBack(changes, i, 1) });
}

/**
 * Each run of escapes decoded as UTF-8 (`%C3%A9` is one `é`); a run that is
 * not UTF-8 has its ASCII escapes decoded one by one. `+` is a space in a
 * query string, so with `plus` it is decoded too (a second view: `+` is also
 * part of addresses and phone numbers).
 */
function urlEdits(text: string, plus: boolean): Edit[] {
  const edits: Edit[] = [];
  PERCENT_RUN.lastIndex = 0;
  const pattern = plus ? /(?:%[0-9A-Fa-f]{2})+|\+/g : PERCENT_RUN;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const run = match[0];
    if (run === '+') {
      edits.push([match.index, match.index + 1, ' ']);
      continue;
    }
    try {
      edits.push([match.index, match.index + run.length, decodeURIComponent(run)]);
    } catch {
      for (let i = 0; i < run.length; i += 3) {
        const byte = Number.parseInt(run.slice(i + 1, i + 3), 16);
        if (byte < 0x80) edits.push([match.index + i, match.index + i + 3, String.fromCharCode(byte)]);
      }
    }
  }
  return edits;
}

function entityEdits(text: string): Edit[] {
  const edits: Edit[] = [];
  ENTITY.lastIndex = 0;
  for (let match = ENTITY.exec(text); match !== null; match = ENTITY.exec(text)) {
    const [whole, decimal, hex, name] = match;
    let decoded: string | undefined;
    if (name !== undefined) decoded = NAMED[name];
    else {
      const code = decimal !== undefined ? Number(decimal) : Number.parseInt(hex as string, 16);
      if (code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) decoded = String.fromCodePoint(code);
    }
    if (decoded !== undefined) edits.push([match.index, match.index + whole.length, decoded]);
  }
  return edits;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Runs that decode to text: valid UTF-8 without control characters (but tab
 * and line breaks). A run of hex digits and dashes (a UUID, a hash) is no
 * base64 text, nor is one mixing the two alphabets; binary (an image, a
 * compressed blob) fails the UTF-8 test on its first bytes.
 */
function base64Edits(text: string): Edit[] {
  const edits: Edit[] = [];
  BASE64_RUN.lastIndex = 0;
  for (let match = BASE64_RUN.exec(text); match !== null; match = BASE64_RUN.exec(text)) {
    const run = match[0];
    if (/^[0-9A-Fa-f-]*=*$/.test(run) || (/[+/]/.test(run) && /[-_]/.test(run))) continue;
    const body = run.replace(/=+$/, '');
    if (body.length % 4 === 1) continue;
    const decoded = decodeText(body);
    if (decoded !== undefined) edits.push([match.index, match.index + run.length, decoded]);
  }
  return edits;
}

function decodeText(body: string): string | undefined {
  try {
    const decoded = utf8.decode(Buffer.from(body, 'base64'));
    // Control characters (or U+FFFD from a bad sequence) on purpose: such a body is binary, not text.
    return /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F\uFFFD]/.test(decoded) ? undefined : decoded;
  } catch {
    return undefined;
  }
}
