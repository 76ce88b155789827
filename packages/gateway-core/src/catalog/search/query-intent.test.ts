import { describe, expect, it } from 'vitest';
import { methodServes, queryIntent } from './query-intent.js';

describe('queryIntent', () => {
  it('reads the leading verb of an order, past the words a request opens with', () => {
    expect(queryIntent('List the open pull requests')).toBe('read');
    expect(queryIntent('Please could you delete the branch feature-x')).toBe('delete');
    expect(queryIntent('Create a label called needs-triage')).toBe('create');
    expect(queryIntent('Quickly rerun the failed jobs')).toBe('create');
    expect(queryIntent('Close issue 17')).toBe('change');
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
  it('matches reads to GET, deletes to DELETE, creations to POST and PUT, other changes to any write', () => {
    expect(methodServes('read', 'GET')).toBe(true);
    expect(methodServes('read', 'PUT')).toBe(false);
    expect(methodServes('delete', 'DELETE')).toBe(true);
    expect(methodServes('change', 'DELETE')).toBe(false);
    expect(methodServes('create', 'PATCH')).toBe(false);
    expect(['POST', 'PUT'].every((method) => methodServes('create', method as 'POST'))).toBe(true);
    expect(['POST', 'PUT', 'PATCH'].every((method) => methodServes('change', method as 'POST'))).toBe(true);
  });
});
