import { describe, expect, it } from 'vitest';
import type { InputSchema } from '../tools/definition.js';
import { normalizeText, splitArguments } from './arguments.js';

const schema: InputSchema = {
  type: 'object',
  required: [],
  properties: {
    query: { type: 'string' },
    title: { type: 'string' },
    productId: { type: 'string' },
    sku: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' },
    since: { type: 'string', format: 'date' },
    sort: { type: 'string', enum: ['price asc', 'price desc'] },
    limit: { type: 'integer' },
    inStock: { type: 'boolean' },
    tags: { type: ['string', 'null'] },
  },
};

describe('splitArguments', () => {
  it('takes plain multi-word strings as text and compares everything else exactly', () => {
    const split = splitArguments(schema, {
      query: 'red running shoes',
      title: 'Shoes',
      productId: 'prod 42 b',
      sku: 'ABC-12',
      since: '2030-01-01',
      sort: 'price asc',
      limit: 5,
      inStock: true,
      tags: 'a b',
    });
    expect(split.text).toEqual([['query', 'red running shoes']]);
    expect(split.exact).toEqual({
      title: 'Shoes', // one word: nothing to paraphrase
      productId: 'prod 42 b', // an identifier by name, whatever it looks like
      sku: 'ABC-12',
      since: '2030-01-01',
      sort: 'price asc', // an enum, though it has two words
      limit: 5,
      inStock: true,
      tags: 'a b', // not a plain string type
    });
  });

  it('takes a text with numbers as text: the guard compares its numbers', () => {
    const split = splitArguments(schema, { query: 'laptops between 1,000 and 2000.50 dollars', title: 'Top 10 picks' });
    expect(split.text.map(([name]) => name)).toEqual(['query', 'title']);
  });

  it('treats arguments missing from the schema as exact', () => {
    expect(splitArguments(schema, { extra: 'two words' })).toEqual({ exact: { extra: 'two words' }, text: [] });
  });
});

describe('normalizeText', () => {
  it('ignores case, spacing, punctuation, plurals and filler words', () => {
    expect(normalizeText('  Red\n Running   SHOES ')).toBe('red running shoe');
    expect(normalizeText('Please show me the USB-C cables, under $20!')).toBe('usb-c cable under $20');
    expect(normalizeText('the')).toBe('the');
  });
});
