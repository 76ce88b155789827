/**
 * The word lists of the semantic guard (semantic-guard.ts): which words state
 * a comparison, a number, a unit, a negation, a time, a grouping, and which
 * terms a paraphrase never swaps. Data only; what reads them is in
 * semantic-matchers.ts. Adding a pair of opposites or a unit is an edit here.
 */

/** A tool's significant terms: a word or phrase, or a group of synonyms that count as one term. */
export type SignificantTerm = string | readonly string[];

// ---------------------------------------------------------------- tokens

export const STOP_WORDS = new Set(
  (
    'a an the any some of in on at to for with by from and or that which who whose what those these this is are ' +
    'was were be been being ' +
    'have has had do does did yet ever still really very currently already just only all my our your their its ' +
    'it them me us i we you'
  ).split(' '),
);

// ---------------------------------------------------------------- relations

/** Comparative phrases, longest first, by the relation they state. */
export const RELATIONS: Array<[phrase: string, relation: string]> = (
  [
    ['lt', 'less than|fewer than|lower than|cheaper than|smaller than|shorter than|under|below|beneath|sub'],
    ['le', 'no more than|not more than|no higher than|not over|not above|at most|up to|upto|maximum|max|within'],
    [
      'gt',
      'more than|greater than|higher than|bigger than|larger than|longer than|pricier than|costlier than|more ' +
        'expensive than|over|above|exceeding|beyond',
    ],
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

export const TRAILING_RELATIONS: Array<[phrase: string, relation: string]> = [
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

// ---------------------------------------------------------------- quantities

export const SMALL_NUMBERS: Record<string, number> = Object.fromEntries(
  (
    'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen ' +
    'seventeen eighteen nineteen'
  )
    .split(' ')
    .map((word, value) => [word, value]),
);
export const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
export const SCALES: Record<string, number> = {
  hundred: 100,
  thousand: 1_000,
  million: 1_000_000,
  billion: 1_000_000_000,
  dozen: 12,
};
/** Words that count like numbers: "dual monitor stand" is "a stand for two monitors". */
export const MULTIPLES: Record<string, number> = { single: 1, dual: 2, double: 2, twin: 2, triple: 3, quad: 4 };
export const ORDINALS: Record<string, number> = Object.fromEntries(
  'first second third fourth fifth sixth seventh eighth ninth tenth'.split(' ').map((word, index) => [word, index + 1]),
);

/** Unit words by canonical name; any other word right after a number is its unit, singular. */
export const UNITS: Record<string, string> = Object.fromEntries(
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

// ---------------------------------------------------------------- negations

export const NEGATORS = new Set([
  'not',
  'no',
  'never',
  'without',
  'except',
  'excluding',
  'exclude',
  'excludes',
  'nor',
  'none',
  'neither',
  'non',
  'lacking',
]);
export const NEGATION_PHRASES = ['other than', 'apart from', 'aside from', 'but not', 'rather than', 'instead of'];
/** Words starting with un- that are no negation. */
export const NOT_UN_NEGATIONS = /^(?:uni|under|until|unto|unless)/;
export const NEGATED_WORDS: Record<string, string> = {
  inactive: 'active',
  incomplete: 'complete',
  disabled: 'enabled',
  unavailable: 'available',
  discontinued: 'continued',
};
/** Skipped between a negator and what it negates. */
export const NEGATION_FILLER = new Set([
  ...STOP_WORDS,
  'yet',
  'ever',
  'even',
  'been',
  'being',
  'get',
  'got',
  'include',
  'including',
  'included',
  'contain',
  'containing',
]);

// ---------------------------------------------------------------- time

export const MONTHS_AND_DAYS = new Map<string, string>([
  ...'january february march april june july august september october november december'
    .split(' ')
    .map((month): [string, string] => [month, month]),
  ...Object.entries({
    jan: 'january',
    feb: 'february',
    mar: 'march',
    apr: 'april',
    jun: 'june',
    jul: 'july',
    aug: 'august',
    sep: 'september',
    sept: 'september',
    oct: 'october',
    nov: 'november',
    dec: 'december',
  }),
  // Days as compared: singular ("weekdays" is "weekday").
  ...'monday tuesday wednesday thursday friday saturday sunday weekend weekday q1 q2 q3 q4'
    .split(' ')
    .map((day): [string, string] => [day, day]),
  ['weekdays', 'weekday'],
]);
export const TIME_WORDS: Record<string, string> = {
  today: 'today',
  tonight: 'today',
  yesterday: 'yesterday',
  tomorrow: 'tomorrow',
  now: 'now',
  currently: 'now',
  recently: 'recent',
  recent: 'recent',
  lately: 'recent',
  ago: 'ago',
};
export const TIME_QUALIFIERS: Record<string, string> = {
  last: 'last',
  past: 'last',
  previous: 'last',
  prior: 'last',
  this: 'this',
  current: 'this',
  next: 'next',
  coming: 'next',
  upcoming: 'next',
};
export const TIME_UNITS: Record<string, string> = {
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  year: 'year',
  years: 'year',
  quarter: 'quarter',
  quarters: 'quarter',
  weekend: 'weekend',
  night: 'night',
  season: 'season',
  hour: 'hour',
  hours: 'hour',
};
export const PERIODIC: Record<string, string> = {
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
  yearly: 'year',
  annual: 'year',
  annually: 'year',
  quarterly: 'quarter',
  hourly: 'hour',
  nightly: 'night',
};

/**
 * A period named alone is the step of a series ("revenue by month", "per
 * week"), the same as the adverb ("monthly", "weekly"): `time:every-…`,
 * whichever way it is said. A period with a number ("30 days") is a
 * quantity, one with a qualifier ("last month") a time, both read before.
 */
export const GRANULARITY: Record<string, string> = {
  hour: 'hour',
  hours: 'hour',
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  quarter: 'quarter',
  quarters: 'quarter',
  year: 'year',
  years: 'year',
};

// ---------------------------------------------------------------- groupings

/**
 * Words that say what follows is a grouping or a maker: "revenue by region", "cost per customer", "mice by Logitech".
 */
export const GROUPING_WORDS = new Set(['by', 'per']);

// ---------------------------------------------------------------- marked terms

/**
 * Opposites a paraphrase never swaps: each group is one term (its synonyms
 * count as the same), and two texts must mention the same ones. A
 * superlative is a term of its own: "the cheapest mouse" is not "cheap mice".
 */
export const OPPOSITES: readonly (readonly string[])[] = [
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
