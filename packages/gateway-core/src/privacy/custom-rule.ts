import { setFlagsFromString } from 'node:v8';
import { redactionMarker, type ScanRule } from './scanner.js';

/** A configured regex rule: what it finds is replaced by `replacement` or `[REDACTED:<name>]`. */
export interface PrivacyRule {
  /** Names the kind in the marker and in the redaction counts. */
  name: string;
  /** JavaScript regular expression source, without slashes. */
  pattern: string;
  /** `m` and/or `s`; matching is always global. */
  flags?: string;
  /** `$&`, `$1`…`$99` and `$<name>` refer to the match and its groups; `$$` is a `$`. */
  replacement?: string;
}

export const MAX_RULE_PATTERN_LENGTH = 512;
export const RULE_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const ALLOWED_FLAGS = /^(?!.*(.).*\1)[ms]*$/;

/** Why a rule cannot be used, and which of its fields is at fault. */
export class RuleProblem extends Error {
  constructor(
    readonly field: 'name' | 'pattern' | 'flags' | 'replacement',
    message: string,
  ) {
    super(message);
    this.name = 'RuleProblem';
  }
}

/**
 * Compiles a configured rule once, refusing what could not run safely. Rules
 * run on V8's linear-time RegExp engine (the `l` flag), so no pattern and no
 * response can make one backtrack catastrophically: the engine refuses, at
 * start-up, what it cannot run in linear time (backreferences, lookaround, the
 * `i` and `u` flags, large counted repetitions).
 */
export function compileRule(rule: PrivacyRule): ScanRule {
  if (!RULE_NAME_PATTERN.test(rule.name)) throw new RuleProblem('name', 'must be 1–64 letters, digits, "_" or "-"');
  if (rule.pattern.length === 0) throw new RuleProblem('pattern', 'must not be empty');
  if (rule.pattern.length > MAX_RULE_PATTERN_LENGTH) {
    throw new RuleProblem('pattern', `is longer than ${MAX_RULE_PATTERN_LENGTH} characters`);
  }
  const flags = rule.flags ?? '';
  if (!ALLOWED_FLAGS.test(flags)) {
    throw new RuleProblem(
      'flags',
      'may only hold m and s, each once (i and u cannot run in linear time: write [Ee] for either case)',
    );
  }
  const regex = compileLinear(rule.pattern, flags);
  if (regex.test('')) throw new RuleProblem('pattern', 'matches the empty string');
  regex.lastIndex = 0;
  const { replacement } = rule;
  return {
    kind: rule.name,
    regex,
    replace:
      replacement === undefined ? () => redactionMarker(rule.name) : (match) => expandReplacement(replacement, match),
  };
}

function compileLinear(pattern: string, flags: string): RegExp {
  enableLinearEngine();
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new RuleProblem('pattern', `is not a valid regular expression (${(error as Error).message})`);
  }
  try {
    return new RegExp(pattern, `${flags}gl`);
  } catch {
    throw new RuleProblem(
      'pattern',
      'cannot run in linear time: backreferences, lookahead, lookbehind and large counted repetitions ({n,m} ' +
        'with a big m) are not allowed',
    );
  }
}

let linearEngine: boolean | undefined;

/**
 * The `l` flag exists behind a V8 flag that only makes it available; it
 * changes nothing for other regular expressions. Set once, on first use.
 */
function enableLinearEngine(): void {
  if (linearEngine === undefined) {
    setFlagsFromString('--enable-experimental-regexp-engine');
    try {
      linearEngine = new RegExp('a', 'l').test('a');
    } catch {
      linearEngine = false;
    }
  }
  if (!linearEngine)
    throw new RuleProblem(
      'pattern',
      'custom rules need the linear-time RegExp engine of V8, which this Node.js does not offer',
    );
}

/** String.prototype.replace's `$` patterns, applied to one match. */
function expandReplacement(template: string, match: RegExpExecArray): string {
  return template.replace(/\$(\$|&|<([^>]*)>|\d{1,2})/g, (token, what: string, name: string | undefined) => {
    if (what === '$') return '$';
    if (what === '&') return match[0];
    if (name !== undefined) return match.groups?.[name] ?? '';
    const group = Number(what);
    return group >= 1 && group < match.length ? (match[group] ?? '') : token;
  });
}
