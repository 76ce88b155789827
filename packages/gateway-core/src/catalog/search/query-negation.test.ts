import { describe, expect, it } from 'vitest';
import { withoutNegatedPhrases } from './query-negation.js';

describe('withoutNegatedPhrases', () => {
  it('drops the words a negator names, up to three', () => {
    expect(withoutNegatedPhrases('Merge one branch into another without a pull request')).toBe(
      'Merge one branch into another',
    );
    expect(withoutNegatedPhrases('List repositories except forks')).toBe('List repositories');
    expect(withoutNegatedPhrases("Delete the label, but don't touch issues")).toBe('Delete the label, but');
  });

  it('stops at punctuation and at a word that starts a new clause', () => {
    expect(withoutNegatedPhrases('Rerun the job without cache, then list its logs')).toBe(
      'Rerun the job , then list its logs',
    );
    expect(withoutNegatedPhrases('Create a release without notes for tag v2')).toBe('Create a release for tag v2');
  });

  it('leaves a query that negates nothing as it is', () => {
    expect(withoutNegatedPhrases('List the open issues of a repository')).toBe('List the open issues of a repository');
    expect(withoutNegatedPhrases('')).toBe('');
  });
});
