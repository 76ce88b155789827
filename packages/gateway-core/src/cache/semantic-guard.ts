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
 * The word lists are in semantic-lexicon.ts, what reads each kind of fact in
 * semantic-matchers.ts; here, the walk over a text that puts them together.
 *
 * The comparison errs towards a miss: a paraphrase that moves a fact ("Nike
 * shoes" vs "shoes by nike") costs one downstream call; a wrong hit costs a
 * wrong answer.
 */

import { GRANULARITY, MONTHS_AND_DAYS, type SignificantTerm } from './semantic-lexicon.js';
import {
  capitalisedEntities,
  groupingAt,
  markedTerms,
  negationAt,
  quantityAt,
  relationAt,
  timeAt,
  tokenize,
  trailingRelationAt,
} from './semantic-matchers.js';

export type { SignificantTerm } from './semantic-lexicon.js';
export { stem } from './semantic-matchers.js';

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

export function textFacts(text: string, significantTerms: readonly SignificantTerm[] = []): TextFacts {
  const tokens = tokenize(text);
  const facts: TextFacts = {
    negated: [],
    quantities: [],
    relations: [],
    entities: capitalisedEntities(tokens),
    marked: [],
  };
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
      facts.quantities.push(
        `${relationName}${relationName ? ' ' : ''}${quantity.value}${quantity.unit ? ' ' + quantity.unit : ''}`,
      );
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
