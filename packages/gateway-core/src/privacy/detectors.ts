import { isIPv6 } from 'node:net';
import { isCardNumber } from './checksums.js';
import { acceptCredential, CREDENTIAL_PATTERN, CREDENTIAL_VALUE_GROUPS, mayHoldCredential } from './credentials.js';
import { acceptEmail, EMAIL_PATTERN } from './email.js';
import { isIban } from './iban.js';
import { acceptInternationalPhone, acceptNationalPhone } from './phone.js';
import { AT, COLON, DIGIT, DOT, EQUALS, PLUS } from './features.js';
import type { ScanRule } from './scanner.js';

/**
 * The built-in detectors. Every pattern is linear: no quantified group holds
 * an unbounded quantifier, and repetitions are bounded or separated by a
 * character the repeated class cannot match. Checksums and shape checks run
 * on the match, so look-alikes (order numbers, dates, prices) are left alone.
 */
export const DETECTOR_NAMES = [
  'email',
  'phone',
  'card',
  'ssn',
  'iban',
  'ipv4',
  'ipv6',
  'jwt',
  'api-key',
  'bearer',
  'credential',
] as const;

export type DetectorName = (typeof DETECTOR_NAMES)[number];

export function isDetectorName(name: string): name is DetectorName {
  return (DETECTOR_NAMES as readonly string[]).includes(name);
}

const digitsOf = (text: string): string => text.replace(/\D/g, '');

/** A JWT header: base64url of a JSON object with an `alg` (RFC 7515 §4.1.1). */
function isJwtHeader(segment: string): boolean {
  const text = Buffer.from(segment, 'base64url').toString('utf8');
  // Most look-alikes fail here, without the cost of a parse that throws.
  if (!text.includes('"alg"')) return false;
  try {
    const header: unknown = JSON.parse(text);
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

/** Whether `text` holds at least `count` colons. */
function hasColons(text: string, count: number): boolean {
  for (let at = text.indexOf(':'), seen = 1; at >= 0; at = text.indexOf(':', at + 1), seen++)
    if (seen >= count) return true;
  return false;
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';

interface Detector extends ScanRule {
  readonly kind: DetectorName;
}

/**
 * In priority order: where two detectors find overlapping text the earlier
 * start wins, and at the same start the one listed first (a JWT after
 * `Bearer ` is one bearer redaction, not two).
 */
export const DETECTORS: readonly Detector[] = [
  {
    kind: 'bearer',
    regex: /\b(?:[Bb]earer|BEARER)\s+[A-Za-z0-9._~+/-]{8,}=*/g,
    // `Bearer ` and 8 characters at least.
    minLength: 15,
    mayMatch: (text) => /bearer/i.test(text),
    // A credential has digits or is long; `Bearer instrument` is English.
    accept: (match) => {
      const token = match.replace(/^\S+\s+/, '');
      return /\d/.test(token) || token.length >= 20 ? match.length : 0;
    },
  },
  {
    kind: 'jwt',
    // Three base64url segments (RFC 7519, JWS compact form, RFC 7515 §7.1);
    // the header must decode to a JSON object naming its `alg`, so any
    // payload (not only a JSON one, `eyJ…`) is found and look-alikes are not.
    regex: /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g,
    needs: DOT,
    mayMatch: (text) => text.includes('eyJ'),
    accept: (match) => (isJwtHeader(match.slice(0, match.indexOf('.'))) ? match.length : 0),
  },
  {
    kind: 'api-key',
    // Vendor key formats, each as its vendor documents it (the maintained
    // Node ruleset, secretlint, keeps its patterns inside rule modules that
    // only run in its engine; its rules and gitleaks' were the cross-check):
    // - OpenAI / Anthropic `sk-…`, `sk-proj-…`, `sk-ant-…` (platform.openai.com/docs/api-reference/authentication)
    // - Stripe secret and restricted keys `sk_live_…`, `rk_test_…` (docs.stripe.com/keys#obtain-api-keys)
    // - GitHub `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_` + 36, fine-grained `github_pat_…`
    //   (github.blog/2021-04-05-behind-githubs-new-authentication-token-formats)
    // - AWS access key ids `AKIA…`/`ASIA…` + 16
    //   (docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html)
    // - Slack `xoxb-`/`xoxp-`/`xoxa-`/`xoxs-`/`xoxr-`/`xoxo-` (api.slack.com/authentication/token-types)
    // - Google API keys `AIza` + 35 (cloud.google.com/docs/authentication/api-keys)
    // - GitLab personal access tokens `glpat-` + 20 (docs.gitlab.com/ee/security/tokens/#token-prefixes)
    // - npm access tokens `npm_` + 36 (github.blog/2021-09-23-announcing-npms-new-access-token-format)
    // - SendGrid `SG.` + 22 + `.` + 43 (docs.sendgrid.com/ui/account-and-settings/api-keys)
    regex: new RegExp(
      String.raw`\b(?:sk-[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{36,}|` +
        String.raw`github_pat_[A-Za-z0-9_]{22,}|(?:AKIA|ASIA)[A-Z0-9]{16}|xox[abposr]-[A-Za-z0-9-]{10,}|` +
        String.raw`AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|` +
        String.raw`SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})`,
      'g',
    ),
    // The shortest format (`xoxb-` and 10) is 15 characters of the base64 alphabets in a row (SendGrid's
    // `SG.` is followed by 22): text without such a run skips the search.
    minRun: 15,
  },
  {
    kind: 'credential',
    // `password=…`, `api_key: …`, `"secret": "…"` inside a string: the value (see credentials.ts).
    regex: CREDENTIAL_PATTERN,
    needsAny: COLON | EQUALS,
    mayMatch: mayHoldCredential,
    accept: acceptCredential,
    group: CREDENTIAL_VALUE_GROUPS,
  },
  {
    kind: 'email',
    // Internationalised, look-alike, punycode and dotless domains: see email.ts.
    regex: EMAIL_PATTERN,
    needs: AT,
    accept: acceptEmail,
  },
  {
    kind: 'iban',
    // Compact (`DE89370400440532013000`) or printed in groups of four with one
    // kind of separator, a space or a dash; any case (`de89 3704 …`). The
    // country's length and mod-97 decide (see isIban), so UUIDs never pass.
    regex: new RegExp(
      String.raw`\b[A-Za-z]{2}\d{2}(?:[A-Za-z0-9]{11,30}|` +
        String.raw`([ -])[A-Za-z0-9]{4}(?:\1[A-Za-z0-9]{4}){1,6}(?:\1[A-Za-z0-9]{1,3})?)\b`,
      'g',
    ),
    needs: DIGIT,
    // The check digits; and no country's IBAN is shorter than 15 (accept refuses less).
    minDigits: 2,
    minLength: 15,
    accept: (match) => {
      // Drop trailing groups the pattern may have taken from the next word.
      for (let candidate = match; candidate.length >= 15; candidate = candidate.replace(/[ -][A-Za-z0-9]+$/, '')) {
        if (isIban(candidate.replace(/[ -]/g, ''))) return candidate.length;
        if (!/[ -]/.test(candidate)) break;
      }
      return 0;
    },
  },
  {
    kind: 'card',
    // 13–19 digits, compact or in the printed groupings (4-4-4-4[-1..3], 4-6-5,
    // 4-6-4) separated by spaces or dashes, mixed too (`4111 1111–1111 1111`
    // folds to both); see isCardNumber.
    regex: new RegExp(
      String.raw`(?<![\w.,])(?:\d{13,19}|\d{4}[ -]\d{4}[ -]\d{4}[ -]\d{4}(?:[ -]\d{1,3})?|` +
        String.raw`\d{4}[ -]\d{6}[ -]\d{4,5})(?!\w|[.,]\d)`,
      'g',
    ),
    needs: DIGIT,
    minDigits: 13,
    accept: (match) => {
      if (isCardNumber(digitsOf(match))) return match.length;
      // `4111 1111 1111 1111 0`: the optional fifth group may be a neighbour.
      const shorter = match.replace(/[ -]\d{1,3}$/, '');
      return shorter !== match && isCardNumber(digitsOf(shorter)) ? shorter.length : 0;
    },
  },
  {
    kind: 'ssn',
    // Dashed; nine bare digits only after the word (next rule). Never-issued areas excluded.
    regex: /(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-]|\.\d)/g,
    needs: DIGIT,
    minDigits: 9,
  },
  {
    kind: 'ssn',
    // Nine digits without dashes (`123456789`, `123 45 6789`) only right after
    // the word: `SSN`, `SSNs` or `social security (number|no)`, then at most 12
    // characters and no digit. Elsewhere nine digits are an id or an amount.
    regex: new RegExp(
      String.raw`\b(?:ssns?|social security(?: numbers?| no)?)\b[^\d\n]{0,12}?((?!000|666|` +
        String.raw`9\d\d)\d{3}( ?)(?!00)\d{2}\2(?!0000)\d{4})(?![\w-]|\.\d)`,
      'dgi',
    ),
    needs: DIGIT,
    minDigits: 9,
    mayMatch: (text) => /ssn|social security/i.test(text),
    group: 1,
  },
  {
    kind: 'ipv6',
    // A generous candidate; node:net decides.
    regex: /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{1,4})?(?![\w:])/g,
    needs: COLON,
    // An address without `::` has all its groups: 8, or 6 and an IPv4 tail, so 6 colons at least.
    mayMatch: (text) => text.includes('::') || hasColons(text, 6),
    accept: (match) => (isIPv6(match) && /[0-9A-Fa-f]/.test(match) ? match.length : 0),
  },
  {
    kind: 'ipv4',
    regex: new RegExp(`(?<![\\w.])(?:${OCTET}\\.){3}${OCTET}(?!\\w|\\.\\d)`, 'g'),
    needs: DIGIT | DOT,
    minDigits: 4,
  },
  {
    kind: 'phone',
    regex: /(?<![\w+])\+\d[\d ().-]{6,22}\d(?!\w)/g,
    needs: PLUS | DIGIT,
    // E.164: 8 digits at least (see phone.ts).
    minDigits: 8,
    accept: acceptInternationalPhone,
  },
  {
    kind: 'phone',
    regex: /(?<![\w.+/:-])(?:\(\d{2,4}\) ?|\d{2,4}[ .-])\d{2,4}(?:[ .-]\d{2,4}){1,4}(?!\w|[ .-]\d)/g,
    needs: DIGIT,
    // 9 digits at least (see phone.ts).
    minDigits: 9,
    accept: acceptNationalPhone,
  },
];
