import { stemmer as porterStem } from 'stemmer';

/**
 * Words as the search index compares them: lower case, split at every
 * boundary a tool name or path has (`list-for-repo`, `listForRepo`,
 * `{owner}/{repo}`), common words dropped, light stemming, and the few
 * abbreviations and verbs an API calls by another name. The same function
 * runs on tools and on queries, so both sides meet in one vocabulary.
 */

/** Words that say nothing about which tool is meant; a model's question is full of them. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or of to in on for by with from at as is are be been was were it its this that these those ' +
    'we our you your he she they them their there here what which who whom whose how when where why ' +
    'do does did can could would should will shall may might must need want like please just also some any ' +
    'all about into onto via'
  ).split(' '),
);

/**
 * Abbreviations and everyday synonyms mapped to the word API documents use.
 * Kept generic (HTTP APIs at large), never tuned to one question of the
 * evaluation set: each entry must be a term any REST API could use. An
 * entry replaces its word (see `indexTerms`); one that must also match
 * itself lists itself.
 */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  pr: ['pull', 'request'],
  prs: ['pull', 'request'],
  repo: ['repository'],
  repos: ['repository'],
  org: ['organization'],
  orgs: ['organization'],
  organisation: ['organization'],
  ci: ['workflow'],
  config: ['configuration'],
  env: ['environment'],
  info: ['information'],
  stats: ['statistic'],
  perms: ['permission'],
  auth: ['authentication'],
  creds: ['credential'],
  dm: ['message'],
  fetch: ['get'],
  retrieve: ['get'],
  show: ['get', 'list'],
  find: ['search', 'list'],
  look: ['search'],
  lookup: ['search'],
  enumerate: ['list'],
  remove: ['delete'],
  erase: ['delete'],
  drop: ['delete'],
  make: ['create'],
  add: ['create', 'add'],
  new: ['create'],
  open: ['create', 'open'],
  edit: ['update'],
  change: ['update'],
  modify: ['update'],
  rename: ['update', 'name'],
  set: ['set', 'update'],
  cancel: ['cancel'],
  rerun: ['re', 'run'],
  restart: ['re', 'run'],
  kick: ['trigger'],
  trigger: ['trigger', 'dispatch', 'create'],
  sync: ['sync', 'merge'],
  // A model asks for "my" things; REST APIs say "the authenticated user".
  i: ['authenticated'],
  me: ['authenticated'],
  my: ['authenticated'],
  mine: ['authenticated'],
  myself: ['authenticated'],
  deleted: ['delete'],
  cheapest: ['price'],
  cost: ['price'],
  stock: ['inventory'],
  use: ['usage'],
  using: ['usage'],
  used: ['usage'],
  uses: ['usage'],
};

/**
 * Porter's stemmer (the `stemmer` package): `lists`, `listing` and `listed`
 * meet `list`, and so do `followers` and `follows`, `contributed` and
 * `contributors`, which a suffix list of plurals alone keeps apart.
 */
export function stem(word: string): string {
  return KEPT_WHOLE.get(word) ?? porterStem(word);
}

/**
 * Words Porter cuts into another word of API catalogs (found by stemming
 * GitHub's tool names and summaries): `settings` would become `set` and
 * match every `set-…` tool, `authorization` would meet `authors`, `personal`
 * (access token) would meet `person`, `one` would meet `on`.
 */
const KEPT_WHOLE: ReadonlyMap<string, string> = new Map([
  ['settings', 'setting'],
  ['setting', 'setting'],
  ['authorization', 'authorization'],
  ['authorizations', 'authorization'],
  ['personal', 'personal'],
  ['one', 'one'],
]);

/** Raw words of a text: identifiers split at case changes, separators and digits. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/**
 * A word as the index keeps it: null for a stop word, else its stem, or the
 * stems of the words it stands for. A synonym replaces the word rather than
 * joining it, so `repo` and `repository` count as one matched term, not two:
 * the ranking multiplies a tool's score by the number of query terms it
 * matches, and a word counted twice would lift every tool that has both.
 */
export function indexTerms(word: string): string[] | null {
  const lower = word.toLowerCase();
  if (STOP_WORDS.has(lower)) return null;
  const synonyms = SYNONYMS[lower];
  if (synonyms === undefined) return [stem(lower)];
  return [...new Set(synonyms.map(stem))];
}

/** Every index term of a text, in order. */
export function termsOf(text: string): string[] {
  return words(text).flatMap((word) => indexTerms(word) ?? []);
}
