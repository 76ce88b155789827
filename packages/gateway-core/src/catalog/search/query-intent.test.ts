import { describe, expect, it } from 'vitest';
import { methodServes, queryIntent } from './query-intent.js';

describe('queryIntent', () => {
  it('reads the leading verb of an order, past the words a request opens with', () => {
    expect(queryIntent('List the open pull requests')).toBe('read');
    expect(queryIntent('Please could you delete the branch feature-x')).toBe('delete');
    expect(queryIntent('Create a label called needs-triage')).toBe('write');
    expect(queryIntent('Quickly rerun the failed jobs')).toBe('write');
  });

  it('takes a question for a read', () => {
    expect(queryIntent('Who follows this user?')).toBe('read');
    expect(queryIntent('How much cache storage is the repository using?')).toBe('read');
  });

  it('has no intent when the request does not open with a verb it knows', () => {
    expect(queryIntent('cache storage of a repository')).toBeNull();
    expect(queryIntent('')).toBeNull();
  });
});

describe('methodServes', () => {
  it('matches reads to GET, deletes to DELETE and other changes to POST, PUT and PATCH', () => {
    expect(methodServes('read', 'GET')).toBe(true);
    expect(methodServes('read', 'PUT')).toBe(false);
    expect(methodServes('delete', 'DELETE')).toBe(true);
    expect(methodServes('write', 'DELETE')).toBe(false);
    expect(['POST', 'PUT', 'PATCH'].every((method) => methodServes('write', method as 'POST'))).toBe(true);
  });
});
