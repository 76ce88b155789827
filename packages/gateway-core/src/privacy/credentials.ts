/**
 * Credentials written as `key=value`, `key: value` or `"key": "value"` inside
 * a string: a query string (`?user=bob&password=hunter2`), a config or `.env`
 * dump (`DB_PASSWORD=…`, `api_key: …`), a log line, JSON quoted in text. Only
 * the value is redacted, so the answer still says what was there
 * (`password=[REDACTED:credential]`).
 *
 * The key is a credential word, alone or after up to three `_`/`-`/`.`-joined
 * words (`db_password`, `AWS_SECRET_ACCESS_KEY`), never glued to a word
 * before it: `nextPageToken=…` is a cursor the agent needs, not a secret.
 * What the value looks like then decides (`acceptCredential`), so error
 * messages and prose (`password: must be 8 characters`, `token: expired`)
 * and placeholders (`password=***`, `api_key=${API_KEY}`) are left alone.
 * A bare value ends at white space, a quote, `,` or `;`, or an `&` that
 * starts the next query parameter (`&lang=en`).
 */

const PASSWORD_WORDS = 'pass(?:word|wd|phrase)?|pwd|pin';
const SECRET_WORDS =
  'secret|client[_-]?secret|(?:api|access|secret|private|signing|encryption|master)[_-]?key|apikey|' +
  '(?:access|auth|refresh|id|session|bearer|api|private|personal|csrf)[_-]?token|token|credentials?';

export const CREDENTIAL_PATTERN = new RegExp(
  `(?<![A-Za-z0-9_.-])(?:[A-Za-z0-9]{1,24}[_.-]){0,3}(${PASSWORD_WORDS}|${SECRET_WORDS})` +
    `["']?[ \\t]{0,3}([:=])[ \\t]{0,3}` +
    `(?:"([^"\\n]{1,256})"|'([^'\\n]{1,256})'|((?:[^\\s"'&,;<>]|&(?![\\w.-]{1,64}=)){1,256}))`,
  'dgi',
);

/** The value's capture groups, quoted by `"`, by `'`, or bare. */
export const CREDENTIAL_VALUE_GROUPS = [3, 4, 5] as const;

/** Cheap test first (after the scanner saw a `:` or `=`): a credential word somewhere. */
export function mayHoldCredential(text: string): boolean {
  return /pass|pwd|pin|secret|key|token|credential/i.test(text);
}

/** Values that stand for a credential without being one. */
const PLACEHOLDER = new RegExp(
  String.raw`^(?:\*+|x{3,}|•+|\.{3}|…|null|nil|none|undefined|true|false|yes|no|empty|n\/a|redacted|hidden|masked|` +
    String.raw`\[redacted[^\]]*\]|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%s|\$[A-Z_][A-Z0-9_]*)$`,
  'i',
);

/** Keys ending in `token` that name a page cursor or a count, not a secret. */
const NOT_SECRET_KEY = new RegExp(
  String.raw`(?:page|next|prev|previous|continuation|cursor|sync|resume|max|min|input|output|prompt|completion|` +
    String.raw`total)[_.-]?token$`,
  'i',
);

/**
 * The match's length when its value is a credential, 0 otherwise. A
 * password is any value; a token, key or secret is at least 8 characters and
 * not one plain lower-case word. A bare value after `:` followed by more
 * words is prose (`password: must be at least 8 characters`) unless it has a
 * digit or a symbol (`password: hunter2 and …`).
 */
export function acceptCredential(match: string, groups: RegExpExecArray): number {
  const word = (groups[1] ?? '').toLowerCase();
  const value = groups[3] ?? groups[4] ?? groups[5] ?? '';
  const key = match.slice(0, (groups.indices?.[1]?.[1] ?? 0) - groups.index);
  if (PLACEHOLDER.test(value) || NOT_SECRET_KEY.test(key)) return 0;
  // `Pass: 12, Fail: 3` is a score: bare `pass` is a password only in `pass=…` (a query, a config).
  if (word === 'pass' && groups[2] === ':') return 0;
  const isPassword = /^(?:pass|pwd|pin)/.test(word);
  const plainWord = /^[a-z]+$/.test(value);
  if (!isPassword && (value.length < 8 || plainWord)) return 0;
  if (word === 'pin' && !/^\d{4,8}$/.test(value)) return 0;
  const bare = groups[5] !== undefined;
  if (bare && groups[2] === ':' && plainWord) {
    const after = (groups.input as string).slice(groups.index + match.length);
    if (/^[ \t]+\p{L}/u.test(after)) return 0;
  }
  return match.length;
}
