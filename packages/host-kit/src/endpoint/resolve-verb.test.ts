import { describe, expect, it } from 'vitest';
import { resolveVerb } from './resolve-verb.js';

const served = (...verbs: string[]) => new Set(verbs);

describe('resolveVerb', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const)('resolves a %s mapper to its verb', (verb) => {
    expect(resolveVerb(served(verb), null)).toEqual({ ok: true, verb });
    expect(resolveVerb(served(verb), verb)).toEqual({ ok: true, verb });
  });

  it('ignores HEAD served beside GET', () => {
    expect(resolveVerb(served('GET', 'HEAD'), null)).toEqual({ ok: true, verb: 'GET' });
  });

  it('needs httpMethod for app.all and accepts any tool verb there', () => {
    expect(resolveVerb(served('ALL'), null)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('every verb'),
    });
    expect(resolveVerb(served('ALL'), 'PATCH')).toEqual({ ok: true, verb: 'PATCH' });
  });

  it('needs httpMethod for a multi-verb endpoint, and it must be one of its verbs', () => {
    const result = resolveVerb(served('PUT', 'PATCH'), null);
    expect(result).toMatchObject({ ok: false, problem: expect.stringContaining('PUT, PATCH') });
    expect(result).toMatchObject({ fix: expect.stringContaining('httpMethod') });
    expect(resolveVerb(served('PUT', 'PATCH'), 'PATCH')).toEqual({ ok: true, verb: 'PATCH' });
    expect(resolveVerb(served('PUT', 'PATCH'), 'DELETE')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('DELETE is not a verb the endpoint serves'),
    });
  });

  it('rejects a declared verb a single-verb endpoint does not serve', () => {
    expect(resolveVerb(served('GET'), 'POST')).toMatchObject({ ok: false, fix: expect.stringContaining('GET') });
  });

  it('rejects an endpoint serving only a verb no tool can use', () => {
    expect(resolveVerb(served('OPTIONS'), null)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('OPTIONS'),
    });
  });
});
