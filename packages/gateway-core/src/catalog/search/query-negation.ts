/**
 * A question may say what it does not want: "merge one branch into another
 * without a pull request", "list repositories except forks". Words after a
 * negator name the tools NOT meant, so matching them ranks exactly those
 * first; the ranking reads the question without them. The negated phrase
 * ends at punctuation or a word that starts a new clause, and after a few
 * words at most: a negator does not reach across a sentence.
 */
const NEGATORS: ReadonlySet<string> = new Set(['without', 'not', 'except', 'excluding', 'never', 'no', 'nor']);

/** Words that end a negated phrase: a new clause or purpose starts. */
const CLAUSE_WORDS: ReadonlySet<string> = new Set([
  'and',
  'so',
  'then',
  'to',
  'that',
  'which',
  'because',
  'while',
  'when',
  'for',
  'in',
  'on',
  'from',
]);

/** Words that may sit between a negator and what it negates ("without a", "not the"). */
const FILLER: ReadonlySet<string> = new Set([
  'a',
  'an',
  'the',
  'any',
  'using',
  'via',
  'through',
  'creating',
  'opening',
  'going',
]);

const MAX_NEGATED_WORDS = 3;

/** The query less the phrases it negates; the query itself when it negates nothing. */
export function withoutNegatedPhrases(query: string): string {
  const tokens = query.split(/(\s+|[.,;:!?()])/);
  const kept: string[] = [];
  let negating = 0;
  for (const token of tokens) {
    const word = token.toLowerCase();
    if (/^[.,;:!?()]$/.test(token)) negating = 0;
    if (negating > 0 && word.trim() !== '') {
      if (CLAUSE_WORDS.has(word)) negating = 0;
      else {
        if (!FILLER.has(word)) negating--;
        continue;
      }
    }
    if (NEGATORS.has(word) || word.endsWith("n't")) {
      negating = MAX_NEGATED_WORDS;
      continue;
    }
    kept.push(token);
  }
  return kept.join('').replace(/\s+/g, ' ').trim();
}
