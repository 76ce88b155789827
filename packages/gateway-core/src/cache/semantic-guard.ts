/**
 * What two free texts must agree on before the semantic tier may serve one's
 * answer for the other. Embeddings place opposites close together: "orders
 * that are not cancelled" and "cancelled orders", "products over ten dollars"
 * and "under ten dollars", "basic" and "premium customers" all scored near or
 * above the threshold. So the cache reduces each text to the facts a
 * paraphrase keeps and those pairs do not, and compares them exactly:
 *
 * - negations, each with the word it negates (not, no, never, without,
 *   except, excluding, n't, non-, un-: "unpaid" negates "paid");
 * - quantities: digits and number words with their unit and the comparative
 *   before them (under, at most, over, at least, between, before, after…);
 *   comparatives that qualify no number count on their own;
 * - entities: capitalised words not at a sentence's start (unless the whole
 *   text is in title case or capitals), words with a digit or inner capital
 *   (ids, SKUs, "iPhone"), dates, month and day names, and "last week",
 *   "today" and the like;
 * - marked terms: a built-in list of opposites (cheap/expensive, men/women,
 *   wired/wireless, colours, new/used…) and the terms the tool marks
 *   significant, each group of synonyms counting as one.
 *
 * The comparison errs towards a miss: a paraphrase that moves a fact ("Nike
 * shoes" vs "shoes by nike") costs one downstream call; a wrong hit costs a
 * wrong answer.
 */

/** A tool's significant terms: a word or phrase, or a group of synonyms that count as one term. */
export type SignificantTerm = string | readonly string[];

export interface TextFacts {
  negated: string[];
  quantities: string[];
  relations: string[];
  entities: string[];
  marked: string[];
}

export type FactKind = keyof TextFacts;

/** The first kind of fact on which two texts disagree, or null when a semantic hit between them is allowed. */
export function disagreement(a: string, b: string, significantTerms: readonly SignificantTerm[] = []): FactKind | null {
  const [fa, fb] = [textFacts(a, significantTerms), textFacts(b, significantTerms)];
  for (const kind of Object.keys(fa) as FactKind[]) {
    if (fa[kind].join('\u0000') !== fb[kind].join('\u0000')) return kind;
  }
  return null;
}

/** A canonical string of a text's facts: two texts may share a semantic hit only when theirs are equal. */
export function factsKey(text: string, significantTerms: readonly SignificantTerm[] = []): string {
  return JSON.stringify(textFacts(text, significantTerms));
}

interface Token {
  /** Lower case, apostrophes folded. */
  word: string;
  original: string;
  sentenceStart: boolean;
}

export function textFacts(text: string, significantTerms: readonly SignificantTerm[] = []): TextFacts {
  const tokens = tokenize(text);
  const facts: TextFacts = { negated: [], quantities: [], relations: [], entities: capitalisedEntities(tokens), marked: [] };
  const words = tokens.map((token) => token.word);
  let pendingRelation: { relation: string; at: number } | null = null;
  // Words of comparatives are not marked terms too: "at most" says nothing of "most".
  const unmarked = [...words];
  for (let i = 0; i < words.length; i++) {
    const relation = relationAt(words, i);
    if (relation) {
      unmarked.fill('', i, i + relation.length);
      pendingRelation = { relation: relation.relation, at: i + relation.length };
      i += relation.length - 1;
      continue;
    }
    const quantity = quantityAt(words, i);
    if (quantity) {
      const attached = pendingRelation !== null && i - pendingRelation.at <= 2;
      const after = trailingRelationAt(words, i + quantity.length);
      const relationName = after?.relation ?? (attached ? pendingRelation!.relation : '');
      if (attached && after) facts.relations.push(pendingRelation!.relation);
      if (attached) pendingRelation = null;
      if (after) unmarked.fill('', i + quantity.length, i + quantity.length + after.length);
      facts.quantities.push(`${relationName}${relationName ? ' ' : ''}${quantity.value}${quantity.unit ? ' ' + quantity.unit : ''}`);
      i += quantity.length - 1 + (after?.length ?? 0);
      continue;
    }
    if (pendingRelation !== null && i - pendingRelation.at > 2) {
      facts.relations.push(pendingRelation.relation);
      pendingRelation = null;
    }
    const negation = negationAt(words, i);
    if (negation) {
      facts.negated.push(negation.target);
      i += negation.length - 1;
      continue;
    }
    const time = timeAt(words, i);
    if (time) {
      facts.entities.push(time.name);
      i += time.length - 1;
      continue;
    }
    const word = words[i]!;
    const grouping = groupingAt(words, i);
    if (grouping) facts.entities.push(grouping);
    if (GRANULARITY[word]) facts.entities.push(`time:every-${GRANULARITY[word]}`);
    if (/\d/.test(word) || MONTHS_AND_DAYS.has(word)) facts.entities.push(MONTHS_AND_DAYS.get(word) ?? word);
  }
  if (pendingRelation !== null) facts.relations.push(pendingRelation.relation);
  facts.marked = markedTerms(unmarked, significantTerms);
  for (const kind of Object.keys(facts) as FactKind[]) facts[kind] = [...new Set(facts[kind])].sort();
  facts.quantities.sort();
  return facts;
}

// ---------------------------------------------------------------- tokens

const TOKEN = /[$€£]?[\p{L}\p{N}]+(?:['\-.,/][\p{L}\p{N}]+)*%?|[$€£%+~]/gu;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const folded = text.normalize('NFKC').replace(/[’‘`´]/g, "'").replace(/[‐‑‒–—]/g, '-');
  for (const sentence of folded.split(/[.!?;:]+(?:\s+|$)|\n+/)) {
    let first = true;
    for (const match of sentence.matchAll(TOKEN)) {
      tokens.push({ word: match[0].toLowerCase(), original: match[0], sentenceStart: first });
      first = false;
    }
  }
  return tokens;
}

/** Lower case, singular, without a possessive: what is compared of a word. */
export function stem(word: string): string {
  let w = word.toLowerCase().replace(/'s$|s'$|'$/, '');
  if (w.length > 4 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (/(?:ss|x|ch|sh|z)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  return w;
}

const STOP_WORDS = new Set(
  (
    'a an the any some of in on at to for with by from and or that which who whose what those these this is are was were be been being ' +
    'have has had do does did yet ever still really very currently already just only all my our your their its it them me us i we you'
  ).split(' '),
);

/** Words with an inner capital or all in capitals ("iPhone", "USB") anywhere; a capitalised word except at a sentence's start. */
function capitalisedEntities(tokens: Token[]): string[] {
  const lettered = tokens.filter((token) => /^\p{L}/u.test(token.original));
  // Title Case or SHOUTING (every word capitalised) says nothing about which words are names.
  const caseCarriesMeaning = !lettered.every((token) => /^\p{Lu}/u.test(token.original));
  const entities: string[] = [];
  for (const token of lettered) {
    const innerCapital = /^.+\p{Lu}/u.test(token.original) && token.original !== token.original.toUpperCase();
    const acronym = token.original.length > 1 && token.original === token.original.toUpperCase() && /\p{Lu}/u.test(token.original);
    const proper = /^\p{Lu}/u.test(token.original) && !token.sentenceStart;
    if (STOP_WORDS.has(token.word) || NEGATORS.has(token.word)) continue;
    if (innerCapital || (caseCarriesMeaning && (acronym || proper))) entities.push(stem(token.word));
  }
  return entities;
}

// ---------------------------------------------------------------- relations

/** Comparative phrases, longest first, by the relation they state. */
const RELATIONS: Array<[phrase: string, relation: string]> = (
  [
    ['lt', 'less than|fewer than|lower than|cheaper than|smaller than|shorter than|under|below|beneath|sub'],
    ['le', 'no more than|not more than|no higher than|not over|not above|at most|up to|upto|maximum|max|within'],
    ['gt', 'more than|greater than|higher than|bigger than|larger than|longer than|pricier than|costlier than|more expensive than|over|above|exceeding|beyond'],
    ['ge', 'no less than|not less than|no fewer than|at least|minimum|min|from'],
    ['before', 'prior to|earlier than|before|until|till|til'],
    ['after', 'later than|after'],
    ['since', 'since'],
    ['between', 'between'],
    ['about', 'approximately|around|about|roughly|nearly|almost|~'],
    ['exactly', 'exactly|precisely'],
  ] as const
)
  .flatMap(([relation, phrases]) => phrases.split('|').map((phrase): [string, string] => [phrase, relation]))
  .sort((x, y) => y[0].split(' ').length - x[0].split(' ').length);

const TRAILING_RELATIONS: Array<[phrase: string, relation: string]> = [
  ['or less', 'le'],
  ['or fewer', 'le'],
  ['or under', 'le'],
  ['or below', 'le'],
  ['or cheaper', 'le'],
  ['or more', 'ge'],
  ['or over', 'ge'],
  ['or above', 'ge'],
  ['and up', 'ge'],
  ['and above', 'ge'],
  ['and over', 'ge'],
  ['or later', 'since'],
  ['or earlier', 'le'],
  ['plus', 'ge'],
  ['+', 'ge'],
];

function phraseAt(words: string[], i: number, phrase: string): boolean {
  const parts = phrase.split(' ');
  return parts.every((part, k) => words[i + k] === part);
}

type PhraseIndex = Map<string, Array<{ parts: string[]; relation: string }>>;

/** Phrases by their first word, longest first: a token is checked against the few that can start there. */
function indexPhrases(phrases: Array<[phrase: string, relation: string]>): PhraseIndex {
  const index: PhraseIndex = new Map();
  for (const [phrase, relation] of phrases) {
    const parts = phrase.split(' ');
    const list = index.get(parts[0]!) ?? [];
    list.push({ parts, relation });
    index.set(parts[0]!, list);
  }
  for (const list of index.values()) list.sort((x, y) => y.parts.length - x.parts.length);
  return index;
}

const RELATION_INDEX = indexPhrases(RELATIONS);
const TRAILING_INDEX = indexPhrases(TRAILING_RELATIONS);

function matchAt(index: PhraseIndex, words: string[], i: number): { parts: string[]; relation: string } | null {
  for (const entry of index.get(words[i] ?? '') ?? []) {
    if (entry.parts.every((part, k) => words[i + k] === part)) return entry;
  }
  return null;
}

function relationAt(words: string[], i: number): { relation: string; length: number } | null {
  const match = matchAt(RELATION_INDEX, words, i);
  if (!match) return null;
  // "from" only qualifies a number: "orders from Germany" states no bound.
  if ((words[i] === 'from' || words[i] === 'sub') && !quantityAt(words, i + 1 + (words[i + 1] === 'the' ? 1 : 0))) return null;
  return { relation: match.relation, length: match.parts.length };
}

function trailingRelationAt(words: string[], i: number): { relation: string; length: number } | null {
  const match = matchAt(TRAILING_INDEX, words, i);
  return match ? { relation: match.relation, length: match.parts.length } : null;
}

// ---------------------------------------------------------------- quantities

const SMALL_NUMBERS: Record<string, number> = Object.fromEntries(
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'
    .split(' ')
    .map((word, value) => [word, value]),
);
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = { hundred: 100, thousand: 1_000, million: 1_000_000, billion: 1_000_000_000, dozen: 12 };
/** Words that count like numbers: "dual monitor stand" is "a stand for two monitors". */
const MULTIPLES: Record<string, number> = { single: 1, dual: 2, double: 2, twin: 2, triple: 3, quad: 4 };
const ORDINALS: Record<string, number> = Object.fromEntries(
  'first second third fourth fifth sixth seventh eighth ninth tenth'.split(' ').map((word, index) => [word, index + 1]),
);

/** Unit words by canonical name; any other word right after a number is its unit, singular. */
const UNITS: Record<string, string> = Object.fromEntries(
  (
    [
      ['usd', 'dollar dollars usd bucks $'],
      ['eur', 'euro euros eur €'],
      ['gbp', 'pound pounds gbp quid £'],
      ['cent', 'cent cents'],
      ['percent', 'percent per-cent % pct'],
      ['inch', 'inch inches'],
      ['cm', 'cm centimetre centimetres centimeter centimeters'],
      ['mm', 'mm millimetre millimetres millimeter millimeters'],
      ['m', 'm metre metres meter meters'],
      ['km', 'km kilometre kilometres kilometer kilometers'],
      ['kg', 'kg kilo kilos kilogram kilograms'],
      ['g', 'g gram grams'],
      ['lb', 'lb lbs'],
      ['gb', 'gb gigabyte gigabytes'],
      ['tb', 'tb terabyte terabytes'],
      ['mb', 'mb megabyte megabytes'],
      ['hour', 'h hr hrs hour hours'],
      ['minute', 'minute minutes min mins'],
      ['day', 'day days'],
      ['week', 'week weeks wk wks'],
      ['month', 'month months mo'],
      ['year', 'year years yr yrs'],
      ['item', 'item items unit units piece pieces pcs pc'],
    ] as const
  ).flatMap(([unit, words]) => words.split(' ').map((word) => [word, unit])),
);

interface Quantity {
  value: string;
  unit: string;
  length: number;
}

const DIGITS = /^([$€£]?)(\d[\d,]*(?:\.\d+)?)(k|bn)?(%)?$/;
const DIGITS_WITH_UNIT = /^([$€£]?)(\d[\d,]*(?:\.\d+)?)-?(st|nd|rd|th|[a-z]+)$/;

function quantityAt(words: string[], i: number): Quantity | null {
  const word = words[i];
  if (word === undefined) return null;
  const currencyBefore = word === '$' || word === '€' || word === '£' ? UNITS[word]! : '';
  const start = currencyBefore ? i + 1 : i;
  const parsed = numberAt(words, start);
  if (!parsed) return null;
  let unit = currencyBefore || parsed.unit;
  let length = start - i + parsed.length;
  if (!unit) {
    const next = words[i + length];
    if (next !== undefined && UNITS[next] !== undefined) {
      unit = UNITS[next]!;
      length += 1;
    } else if (next !== undefined && /^\p{L}+$/u.test(next) && !STOP_WORDS.has(next) && !isRelationWord(next)) {
      unit = stem(next);
      length += 1;
    }
  }
  return { value: parsed.value, unit, length };
}

function isRelationWord(word: string): boolean {
  return RELATION_INDEX.has(word) || TRAILING_INDEX.has(word);
}

/** A number in digits (with a currency, a k, a % or a unit stuck to it) or in words. */
function numberAt(words: string[], i: number): { value: string; unit: string; length: number } | null {
  const word = words[i]!;
  const digits = DIGITS.exec(word);
  if (digits) {
    const value = Number(digits[2]!.replace(/,/g, '')) * (digits[3] === 'k' ? 1_000 : digits[3] === 'bn' ? 1_000_000_000 : 1);
    const unit = digits[1] ? UNITS[digits[1]]! : digits[4] ? 'percent' : '';
    return { value: String(value), unit, length: 1 };
  }
  const withUnit = DIGITS_WITH_UNIT.exec(word);
  if (withUnit && !withUnit[1]) {
    const value = String(Number(withUnit[2]!.replace(/,/g, '')));
    const suffix = withUnit[3]!;
    if (['st', 'nd', 'rd', 'th'].includes(suffix)) return { value, unit: 'ordinal', length: 1 };
    return { value, unit: suffix === 'in' ? 'inch' : (UNITS[suffix] ?? stem(suffix)), length: 1 };
  }
  if (ORDINALS[word] !== undefined) return { value: String(ORDINALS[word]), unit: 'ordinal', length: 1 };
  if (MULTIPLES[word] !== undefined) return { value: String(MULTIPLES[word]), unit: '', length: 1 };
  return numberInWords(words, i);
}

function numberInWords(words: string[], i: number): { value: string; unit: string; length: number } | null {
  const first = words[i]!;
  if (first !== 'a' && !(first.includes('-') ? isNumberWord(first) : first in SMALL_NUMBERS || first in TENS || first in SCALES)) return null;
  let total = 0;
  let current = 0;
  let length = 0;
  for (let k = i; k < words.length; k++) {
    const word = words[k]!.replace(/-/g, ' ');
    const parts = word.split(' ');
    if (!parts.every((part) => part in SMALL_NUMBERS || part in TENS || part in SCALES || (part === 'a' && k === i) || (part === 'and' && length > 0 && k + 1 < words.length && isNumberWord(words[k + 1]!)))) break;
    for (const part of parts) {
      if (part === 'and') continue;
      if (part === 'a') current = 1;
      else if (part in SMALL_NUMBERS) current += SMALL_NUMBERS[part]!;
      else if (part in TENS) current += TENS[part]!;
      else if (part === 'hundred' || part === 'dozen') current = (current || 1) * SCALES[part]!;
      else {
        total += (current || 1) * SCALES[part]!;
        current = 0;
      }
    }
    length++;
  }
  // "a" alone is no number.
  if (length === 0 || (length === 1 && words[i] === 'a')) return null;
  return { value: String(total + current), unit: '', length };
}

function isNumberWord(word: string): boolean {
  return word.split('-').every((part) => part in SMALL_NUMBERS || part in TENS || part in SCALES);
}

// ---------------------------------------------------------------- negations

const NEGATORS = new Set(['not', 'no', 'never', 'without', 'except', 'excluding', 'exclude', 'excludes', 'nor', 'none', 'neither', 'non', 'lacking']);
const NEGATION_PHRASES = ['other than', 'apart from', 'aside from', 'but not', 'rather than', 'instead of'];
/** Words starting with un- that are no negation. */
const NOT_UN_NEGATIONS = /^(?:uni|under|until|unto|unless)/;
const NEGATED_WORDS: Record<string, string> = { inactive: 'active', incomplete: 'complete', disabled: 'enabled', unavailable: 'available', discontinued: 'continued' };
/** Skipped between a negator and what it negates. */
const NEGATION_FILLER = new Set([...STOP_WORDS, 'yet', 'ever', 'even', 'been', 'being', 'get', 'got', 'include', 'including', 'included', 'contain', 'containing']);

function negationAt(words: string[], i: number): { target: string; length: number } | null {
  const word = words[i]!;
  if (NEGATED_WORDS[word] !== undefined) return { target: NEGATED_WORDS[word]!, length: 1 };
  if (word.startsWith('non-') && word.length > 5) return { target: stem(word.slice(4)), length: 1 };
  if (word.startsWith('un') && word.length >= 6 && !NOT_UN_NEGATIONS.test(word) && /^\p{L}+$/u.test(word)) return { target: stem(word.slice(2)), length: 1 };
  let length = 0;
  if (NEGATORS.has(word) || word.endsWith("n't") || word === 'cannot') length = 1;
  else {
    const phrase = NEGATION_PHRASES.find((candidate) => phraseAt(words, i, candidate));
    if (phrase) length = phrase.split(' ').length;
  }
  if (length === 0) return null;
  let k = i + length;
  while (k < words.length && (NEGATION_FILLER.has(words[k]!) || NEGATORS.has(words[k]!))) k++;
  const target = words[k];
  return { target: target === undefined ? '' : stem(NEGATED_WORDS[target] ?? target), length: Math.max(length, k - i + (target === undefined ? 0 : 1)) };
}

// ---------------------------------------------------------------- time

const MONTHS_AND_DAYS = new Map<string, string>([
  ...'january february march april june july august september october november december'.split(' ').map((month): [string, string] => [month, month]),
  ...(['jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec'] as const).map((short): [string, string] => [
    short,
    'january february march april june july august september september october november december'.split(' ')[
      ['jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec'].indexOf(short)
    ]!,
  ]),
  ...'monday tuesday wednesday thursday friday saturday sunday weekend weekday weekdays q1 q2 q3 q4'.split(' ').map((day): [string, string] => [day, stem(day)]),
]);
const TIME_WORDS: Record<string, string> = { today: 'today', tonight: 'today', yesterday: 'yesterday', tomorrow: 'tomorrow', now: 'now', currently: 'now', recently: 'recent', recent: 'recent', lately: 'recent', ago: 'ago' };
const TIME_QUALIFIERS: Record<string, string> = { last: 'last', past: 'last', previous: 'last', prior: 'last', this: 'this', current: 'this', next: 'next', coming: 'next', upcoming: 'next' };
const TIME_UNITS: Record<string, string> = { day: 'day', days: 'day', week: 'week', weeks: 'week', month: 'month', months: 'month', year: 'year', years: 'year', quarter: 'quarter', quarters: 'quarter', weekend: 'weekend', night: 'night', season: 'season', hour: 'hour', hours: 'hour' };
const PERIODIC: Record<string, string> = { daily: 'day', weekly: 'week', monthly: 'month', yearly: 'year', annual: 'year', annually: 'year', quarterly: 'quarter', hourly: 'hour', nightly: 'night' };

function timeAt(words: string[], i: number): { name: string; length: number } | null {
  const word = words[i]!;
  if (TIME_WORDS[word]) return { name: `time:${TIME_WORDS[word]}`, length: 1 };
  if (PERIODIC[word]) return { name: `time:every-${PERIODIC[word]}`, length: 1 };
  const qualifier = TIME_QUALIFIERS[word];
  const unit = TIME_UNITS[words[i + 1] ?? ''];
  if (qualifier && unit) return { name: `time:${qualifier}-${unit}`, length: 2 };
  return null;
}

/**
 * A period named alone is the step of a series ("revenue by month", "per
 * week"), the same as the adverb ("monthly", "weekly"): `time:every-…`,
 * whichever way it is said. A period with a number ("30 days") is a
 * quantity, one with a qualifier ("last month") a time, both read before.
 */
const GRANULARITY: Record<string, string> = { hour: 'hour', hours: 'hour', day: 'day', days: 'day', week: 'week', weeks: 'week', month: 'month', months: 'month', quarter: 'quarter', quarters: 'quarter', year: 'year', years: 'year' };

// ---------------------------------------------------------------- groupings

/** Words that say what follows is a grouping or a maker: "revenue by region", "cost per customer", "mice by Logitech". */
const GROUPING_WORDS = new Set(['by', 'per']);

/**
 * What a text groups by, or who made what it asks for: the word after "by"
 * or "per" (`by:region`). Two reports grouped differently ("revenue by
 * region" and "by country") or two makers ("vpn by nordvpn", lower case, so
 * no name to the entity rule) are different questions however close their
 * vectors; "by" and "per" say the same. A period after them is a
 * granularity instead (GRANULARITY).
 */
function groupingAt(words: string[], i: number): string | null {
  if (!GROUPING_WORDS.has(words[i]!)) return null;
  let k = i + 1;
  while (k < words.length && STOP_WORDS.has(words[k]!)) k++;
  const next = words[k];
  if (next === undefined || GRANULARITY[next] || /\d/.test(next) || !/^\p{L}/u.test(next)) return null;
  return `by:${stem(next)}`;
}

// ---------------------------------------------------------------- marked terms

/**
 * Opposites a paraphrase never swaps: each group is one term (its synonyms
 * count as the same), and two texts must mention the same ones. A
 * superlative is a term of its own: "the cheapest mouse" is not "cheap mice".
 */
const OPPOSITES: readonly (readonly string[])[] = [
  ['cheap', 'cheaper', 'inexpensive', 'affordable', 'budget', 'low-cost', 'bargain'],
  ['cheapest', 'lowest-priced'],
  ['expensive', 'pricey', 'pricier', 'costly', 'high-end', 'luxury'],
  ['priciest', 'highest-priced'],
  ['premium'],
  ['basic', 'standard'],
  ['free'],
  ['paid'],
  ['best', 'top', 'greatest', 'finest', 'top-rated', 'highest-rated', 'best-rated'],
  ['worst', 'bottom', 'lowest-rated', 'worst-rated', 'poorest'],
  ['most'],
  ['least'],
  // Bare "more"/"less" ("more expensive"); "more than" is a comparative and never reaches here.
  ['more'],
  ['less', 'fewer'],
  // Sort orders: both name "low" and "high", so the order itself is the term.
  ['low to high', 'ascending', 'asc', 'cheapest first', 'lowest first'],
  ['high to low', 'descending', 'desc', 'most expensive first', 'highest first'],
  ['a to z', 'a-z'],
  ['z to a', 'z-a'],
  ['him', 'his', 'he'],
  ['her', 'hers', 'she'],
  ['high', 'higher'],
  ['highest'],
  ['low', 'lower'],
  ['lowest'],
  ['new', 'newer', 'brand-new'],
  ['newest', 'latest'],
  ['old', 'older'],
  ['oldest', 'earliest'],
  ['used', 'refurbished', 'second-hand', 'secondhand', 'pre-owned'],
  ['first'],
  ['last', 'final'],
  ['large', 'big', 'bigger', 'larger', 'huge', 'xl'],
  ['largest', 'biggest'],
  ['small', 'smaller', 'little', 'tiny', 'mini', 'compact'],
  ['smallest'],
  ['medium'],
  ['long', 'longer'],
  ['longest'],
  ['short', 'shorter'],
  ['shortest'],
  ['heavy', 'heavier'],
  ['heaviest'],
  ['light', 'lighter', 'lightweight'],
  ['lightest'],
  ['fast', 'faster', 'quick'],
  ['fastest', 'quickest'],
  ['slow', 'slower'],
  ['slowest'],
  ['hot', 'warm'],
  ['cold', 'cool'],
  ['men', 'man', 'male', 'mens', 'gentlemen'],
  ['women', 'woman', 'female', 'womens', 'ladies', 'lady'],
  ['boy', 'boys'],
  ['girl', 'girls'],
  ['kid', 'kids', 'child', 'children', 'childrens'],
  ['adult', 'adults'],
  ['unisex'],
  ['wireless', 'cordless', 'bluetooth'],
  ['wired', 'corded'],
  ['in stock', 'available', 'stocked'],
  ['out of stock', 'sold out'],
  ['open'],
  ['closed'],
  ['active'],
  ['enabled'],
  ['online'],
  ['offline'],
  ['indoor', 'indoors', 'inside'],
  ['outdoor', 'outdoors', 'outside'],
  ['domestic', 'national'],
  ['international', 'foreign', 'overseas'],
  ['increase', 'increasing', 'rising', 'growing'],
  ['decrease', 'decreasing', 'falling', 'declining'],
  ['left'],
  ['right'],
  // Issue 28's fresh pairs: "shipped late" / "shipped early", "do you accept" / "do you offer" were served.
  ['early', 'earlier'],
  ['late', 'later', 'delayed', 'overdue'],
  ['accept', 'accepts', 'accepted', 'accepting'],
  ['day', 'daytime'],
  ['night', 'nighttime'],
  ['summer'],
  ['winter'],
  ['buy', 'buying', 'purchase', 'purchases', 'purchased', 'bought'],
  ['sell', 'selling', 'sale', 'sales', 'sold'],
  ['return', 'returns', 'returned'],
  ['refund', 'refunds', 'refunded'],
  // Support questions and reports (issue 28's sets): each pair was served as a paraphrase before.
  ['log in', 'login', 'logging in', 'sign in', 'signin', 'signing in'],
  ['log out', 'logout', 'logging out', 'sign out', 'signout', 'signing out'],
  ['gross'],
  ['net'],
  // Actions of a support question: measured on issue 28's support set, each pair was served below 0.92.
  ['enable', 'enabling', 'enabled', 'turn on', 'activate'],
  ['disable', 'disabling', 'disabled', 'turn off', 'deactivate'],
  ['add', 'adding', 'added', 'invite'],
  ['remove', 'removing', 'removed', 'delete', 'deleting', 'deleted'],
  ['import', 'importing', 'imported'],
  ['export', 'exporting', 'exported'],
  ['cancel', 'cancelling', 'canceling', 'cancelled', 'canceled'],
  ['renew', 'renewing', 'renewed'],
  ['upgrade', 'upgrading', 'upgraded'],
  ['downgrade', 'downgrading', 'downgraded'],
  ['create', 'creating', 'created', 'open an', 'sign up'],
  ['red'],
  ['blue'],
  ['green'],
  ['black'],
  ['white'],
  ['yellow'],
  ['orange'],
  ['purple'],
  ['pink'],
  ['grey', 'gray'],
  ['brown'],
  ['silver'],
  ['gold'],
];

interface CompiledGroup {
  name: string;
  /** One-word terms, as written and singular. */
  words: string[];
  phrases: Array<{ parts: string[]; stems: string[] }>;
}

function compileGroups(groups: readonly (readonly string[])[]): CompiledGroup[] {
  return groups.map((group) => {
    const compiled: CompiledGroup = { name: group[0]!.toLowerCase(), words: [], phrases: [] };
    for (const term of group) {
      const parts = term.toLowerCase().split(/[\s-]+/).filter(Boolean);
      if (parts.length === 1) compiled.words.push(parts[0]!, stem(parts[0]!));
      else if (parts.length > 1) compiled.phrases.push({ parts, stems: parts.map(stem) });
    }
    return compiled;
  });
}

const COMPILED_OPPOSITES = compileGroups(OPPOSITES);
/** A tool's terms compiled once: its definition keeps the same array from one call to the next. */
const compiledTerms = new WeakMap<readonly SignificantTerm[], CompiledGroup[]>();

function compiledFor(significantTerms: readonly SignificantTerm[]): CompiledGroup[] {
  let compiled = compiledTerms.get(significantTerms);
  if (!compiled) {
    compiled = compileGroups(significantTerms.map((term) => (typeof term === 'string' ? [term] : term)));
    compiledTerms.set(significantTerms, compiled);
  }
  return compiled;
}

function markedTerms(unsplit: string[], significantTerms: readonly SignificantTerm[]): string[] {
  // "left-handed", "usb-c", "sw-ide": a term inside a hyphenated word counts, and "low-cost" matches "low cost".
  const words = unsplit.flatMap((word) => word.split('-')).filter(Boolean);
  const stems = words.map(stem);
  // One-word terms are looked up, so a long text with many terms costs its length plus their number.
  const present = new Set([...words, ...stems]);
  const found: string[] = [];
  for (const group of [...COMPILED_OPPOSITES, ...compiledFor(significantTerms)]) {
    if (group.words.some((word) => present.has(word)) || group.phrases.some((phrase) => containsPhrase(words, stems, present, phrase))) found.push(group.name);
  }
  return found;
}

function containsPhrase(words: string[], stems: string[], present: Set<string>, phrase: { parts: string[]; stems: string[] }): boolean {
  if (!present.has(phrase.parts[0]!) && !present.has(phrase.stems[0]!)) return false;
  for (let i = 0; i + phrase.parts.length <= words.length; i++) {
    if (phrase.parts.every((part, k) => words[i + k] === part || stems[i + k] === phrase.stems[k])) return true;
  }
  return false;
}
