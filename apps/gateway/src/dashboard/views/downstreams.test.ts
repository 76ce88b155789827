import { describe, expect, it } from 'vitest';
import { DownstreamRows, type DownstreamView } from './downstreams.js';

const AT = '2030-01-01T00:00:00.000Z';

function view(overrides: Partial<DownstreamView>): DownstreamView {
  return {
    name: 'orders',
    prefix: 'orders',
    loaded: true,
    toolCount: 4,
    loadedAt: AT,
    problems: [],
    collisions: [],
    lastError: null,
    breaker: 'closed',
    ...overrides,
  };
}

const render = (downstreams: DownstreamView[]) => String(DownstreamRows({ downstreams }));

describe('the downstream rows of the overview and the tool library', () => {
  it("show each downstream's breaker state, tool count, prefix and last load", () => {
    const html = render([view({}), view({ name: 'billing', prefix: '', breaker: 'open', toolCount: 1 })]);
    expect(html).toContain('data-downstream="orders"');
    expect(html).toMatch(/Downstream <span class="mono">orders<\/span>/);
    expect(html).toContain('<span class="badge ok">closed</span>');
    expect(html).toContain('4 tools');
    expect(html).toContain('prefix orders_');
    expect(html).toContain(`<time datetime="${AT}">2030-01-01 00:00:00 UTC</time>`);
    expect(html).toContain('<span class="badge danger">open</span>');
    expect(html).toContain('1 tool<');
  });

  it('say when the tools are not loaded, a read failed, or a name was refused, without the reason', () => {
    const html = render([
      view({
        name: 'billing',
        loaded: false,
        toolCount: 0,
        loadedAt: null,
        lastError: { message: 'connect ECONNREFUSED 10.0.0.7:80', at: AT },
      }),
      view({ name: 'legacy', collisions: [{ tool: 'search', servedBy: 'catalog', refused: 'legacy' }] }),
    ]);
    expect(html).toContain('tools not loaded yet');
    expect(html).toContain('last read of /gw/schema failed');
    expect(html).not.toContain('10.0.0.7');
    expect(html).toContain('1 definitions left out');
    expect(html).toMatch(/tool <span class="mono">search<\/span> refused: downstream catalog serves that name/);
  });

  it("say why an OpenAPI document's last read failed, without addresses, and that the last good tools are served", () => {
    const message =
      'the OpenAPI document cannot be imported: the OpenAPI document is not valid JSON (Unexpected end of JSON input) at http://10.0.0.7:8080/openapi.json';
    const html = render([
      view({ name: 'github', readsOpenApi: true, lastError: { message, at: AT } }),
      view({
        name: 'fresh',
        readsOpenApi: true,
        loaded: false,
        toolCount: 0,
        loadedAt: null,
        lastError: { message: 'the OpenAPI document is 50.0 MiB, over the 32.0 MiB the gateway reads', at: AT },
      }),
    ]);
    expect(html).toContain(
      `last read of its OpenAPI document failed <time datetime="${AT}">2030-01-01 00:00:00 UTC</time>: the OpenAPI document cannot be imported: the OpenAPI document is not valid JSON (Unexpected end of JSON input) at …; serving the last good tools`,
    );
    expect(html).not.toContain('10.0.0.7');
    expect(html).toContain(
      'failed <time datetime="2030-01-01T00:00:00.000Z">2030-01-01 00:00:00 UTC</time>: the OpenAPI document is 50.0 MiB, over the 32.0 MiB the gateway reads</p>',
    );
  });

  it("list the definitions left out (an OpenAPI document's skipped operations), each with why", () => {
    const problems = Array.from(
      { length: 52 },
      (_, index) => `POST /up/${index} (upload${index}): its request body is multipart/form-data, not JSON`,
    );
    const html = render([view({ name: 'github', problems })]);
    expect(html).toContain('52 definitions left out: why');
    expect(html).toContain(
      '<li class="mono">POST /up/0 (upload0): its request body is multipart/form-data, not JSON</li>',
    );
    expect(html).not.toContain('POST /up/50 ');
    expect(html).toContain('and 2 more in the log');
  });
});
