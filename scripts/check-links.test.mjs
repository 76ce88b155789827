import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, checkLinks, slug } from './check-links.mjs';

const repository = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('./test-fixtures/broken-links', import.meta.url));

describe("the repository's Markdown", () => {
  it('has no broken relative link or anchor, and every docs page is reachable from the README', () => {
    expect(checkLinks(repository)).toEqual([]);
  });
});

describe('the link check', () => {
  it('finds a missing page, a missing anchor, a path out of the tree and an unreachable page, and nothing else', () => {
    // packages/kit/docs/ is a page the package ships beside its README: checked and required reachable too.
    expect(checkLinks(fixture)).toEqual([
      'README.md: link to docs/guide/missing.md: no such file docs/guide/missing.md',
      'README.md: link to docs/guide/ok.md#no-such-heading: docs/guide/ok.md has no heading or anchor #no-such-heading',
      'packages/kit/README.md: link to ../../docs/README.md#nothing-here: docs/README.md has no heading or anchor #nothing-here',
      'packages/kit/docs/reference.md: link to ../README.md#no-such-part: packages/kit/README.md has no heading or anchor #no-such-part',
      'docs/guide/ok.md: link to ../../../outside.md: no such file ../outside.md',
      'docs/guide/orphan.md: not reachable from README.md (link it from docs/README.md)',
      'packages/kit/docs/orphan.md: not reachable from README.md (link it from packages/kit/README.md)',
    ]);
  });

  it('names anchors as GitHub does: code and punctuation dropped, duplicates numbered, <a id> kept', () => {
    expect(slug('`Gw:Http:Workers` and setup_steps')).toBe('gwhttpworkers-and-setup_steps');
    expect(slug('4.2 Gateway: management')).toBe('42-gateway-management');
    expect(slug('MCP 2026-07-28 beside the session era (issue 26)')).toBe(
      'mcp-2026-07-28-beside-the-session-era-issue-26',
    );
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n<a id="x"></a>\n')]).toEqual(['a', 'a-1', 'x']);
  });
});
