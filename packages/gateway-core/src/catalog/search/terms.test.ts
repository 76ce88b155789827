import { describe, expect, it } from 'vitest';
import { termsOf } from './terms.js';

describe('termsOf', () => {
  it('stems with Porter, so a question and a tool name meet where only the suffix differs', () => {
    expect(termsOf('Who follows')).toEqual(termsOf('followers'));
    expect(termsOf('cloned')).toEqual(termsOf('get-clones'.split('-')[1]!));
    expect(termsOf('reviewers')).toEqual(termsOf('review'));
  });

  it('splits identifiers and paths, and drops what a route leaves between its segments', () => {
    expect(termsOf('users_list-followers-for-user')).toEqual(['user', 'list', 'follow', 'user']);
    expect(termsOf('/repos/{owner}/{repo}/pulls')).toEqual(['repositori', 'owner', 'repositori', 'pull']);
  });
});

describe('synonyms', () => {
  it('replace a word by the words it stands for, so both spellings count once', () => {
    expect(termsOf('repo')).toEqual(termsOf('repository'));
    expect(termsOf('my PRs')).toEqual(termsOf('authenticated pull request'));
    expect(termsOf('How much storage is it using?')).toEqual(termsOf('much storage usage'));
  });
});

describe('stem', () => {
  it('keeps whole the words Porter would cut into another API word', () => {
    expect(termsOf('repository settings')).not.toContain(termsOf('set')[0]);
    expect(termsOf('authorization')).not.toEqual(termsOf('authors'));
    expect(termsOf('settings')).toEqual(termsOf('setting'));
  });
});
