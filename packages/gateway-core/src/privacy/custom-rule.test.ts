import { describe, expect, it } from 'vitest';
import { compileRule, MAX_RULE_PATTERN_LENGTH, RuleProblem, type PrivacyRule } from './custom-rule.js';
import { createScanner, type RedactionCounts } from './scanner.js';

function run(rule: PrivacyRule, text: string): { text: string; counts: RedactionCounts } {
  const counts: RedactionCounts = {};
  return { text: createScanner([compileRule(rule)])(text, counts), counts };
}

function problemOf(rule: PrivacyRule): { field: string; message: string } {
  try {
    compileRule(rule);
  } catch (error) {
    if (error instanceof RuleProblem) return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error('expected the rule to be refused');
}

describe('compileRule', () => {
  it('redacts with the rule name as the kind', () => {
    expect(run({ name: 'employee-id', pattern: 'EMP-\\d{6}' }, 'by EMP-123456.')).toEqual({
      text: 'by [REDACTED:employee-id].',
      counts: { 'employee-id': 1 },
    });
  });

  it('expands $&, $1, $<name> and $$ in the replacement', () => {
    const rule = {
      name: 'account',
      pattern: '(?<bank>[A-Z]{4})-(\\d{4})\\d{4}',
      replacement: '$<bank>/$1/****$2 ($$) [$&]',
    };
    expect(run(rule, 'ABCD-12345678').text).toBe('ABCD/ABCD/****1234 ($) [ABCD-12345678]');
  });

  it('honours the m and s flags', () => {
    expect(run({ name: 'note', pattern: '^secret:.*$', flags: 'm' }, 'a\nsecret: x\nb').text).toBe(
      'a\n[REDACTED:note]\nb',
    );
    expect(run({ name: 'block', pattern: 'BEGIN.*END', flags: 's' }, 'BEGIN\nkey\nEND').text).toBe('[REDACTED:block]');
  });

  it.each<[string, PrivacyRule, string, RegExp]>([
    ['an empty name', { name: '', pattern: 'x' }, 'name', /letters, digits/],
    ['a name with spaces', { name: 'my rule', pattern: 'x' }, 'name', /letters, digits/],
    ['an empty pattern', { name: 'r', pattern: '' }, 'pattern', /must not be empty/],
    [
      'a too-long pattern',
      { name: 'r', pattern: 'a'.repeat(MAX_RULE_PATTERN_LENGTH + 1) },
      'pattern',
      /longer than 512/,
    ],
    ['an invalid pattern', { name: 'r', pattern: '(unclosed' }, 'pattern', /not a valid regular expression/],
    ['a backreference', { name: 'r', pattern: '(a)\\1' }, 'pattern', /linear time/],
    ['a lookahead', { name: 'r', pattern: 'a(?=b)' }, 'pattern', /linear time/],
    ['the i flag', { name: 'r', pattern: 'a', flags: 'i' }, 'flags', /m and s/],
    ['the g flag', { name: 'r', pattern: 'a', flags: 'g' }, 'flags', /m and s/],
    ['a repeated flag', { name: 'r', pattern: 'a', flags: 'mm' }, 'flags', /each once/],
    ['a pattern matching the empty string', { name: 'r', pattern: 'a*' }, 'pattern', /empty string/],
  ])('refuses %s', (_what, rule, field, message) => {
    const problem = problemOf(rule);
    expect(problem.field).toBe(field);
    expect(problem.message).toMatch(message);
  });

  it('runs patterns that would backtrack catastrophically in linear time', () => {
    const cases: [string, string][] = [
      ['(a|a)*b', 'a'.repeat(100_000)],
      ['\\w*\\d+\\w*@', '1'.repeat(100_000)],
      ['(x+x+)+y', 'x'.repeat(100_000)],
    ];
    for (const [pattern, text] of cases) {
      const started = performance.now();
      expect(run({ name: 'r', pattern }, text).text).toBe(text);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});
