import { describe, expect, it } from 'vitest';
import { asAgentToolManifest } from './as-manifest.js';

describe('asAgentToolManifest', () => {
  it('returns a version 1 manifest as it is', () => {
    const json = { version: 1, strictNullChecks: true, tools: [], controllers: [] };
    expect(asAgentToolManifest(json)).toBe(json);
  });

  it.each([
    null,
    [],
    {},
    { version: 2, strictNullChecks: true, tools: [], controllers: [] },
    { version: 1, tools: [], controllers: [] },
  ])('rejects %j', (json) => {
    expect(() => asAgentToolManifest(json)).toThrow(
      'agent-tools.json is not a version 1 manifest; run `host-kit build`',
    );
  });
});
