import type { BreakerState } from '@tollgate/gateway-core';
import { describe, expect, it } from 'vitest';
import { judgeDownstreams } from './downstream-health.js';
import type { DownstreamStatus } from './tool-catalog.js';

const AT = '2030-01-01T00:00:00.000Z';

function status(name: string, overrides: Partial<DownstreamStatus> = {}): DownstreamStatus {
  return {
    name,
    prefix: '',
    loaded: true,
    toolCount: 3,
    loadedAt: AT,
    problems: [],
    collisions: [],
    lastError: null,
    ...overrides,
  };
}

const closed = (): BreakerState => 'closed';

describe('judgeDownstreams', () => {
  it('is Healthy for a downstream whose tools are all served with its circuit closed', () => {
    expect(judgeDownstreams([status('orders')], { breakerState: closed })).toEqual({
      servable: true,
      components: { 'downstream:orders': { status: 'Healthy' } },
    });
  });

  it('says Degraded for one not loaded while another serves, Unhealthy when none serves', () => {
    const notLoaded = status('billing', {
      loaded: false,
      toolCount: 0,
      loadedAt: null,
      lastError: { message: 'connect ECONNREFUSED 10.0.0.7:80', at: AT },
    });
    const some = judgeDownstreams([status('orders'), notLoaded], { breakerState: closed });
    expect(some.servable).toBe(true);
    expect(some.components['downstream:billing']).toEqual({
      status: 'Degraded',
      description: `tools not loaded: its /gw/schema could not be read (last try ${AT})`,
    });
    const none = judgeDownstreams([notLoaded], { breakerState: closed });
    expect(none).toEqual({
      servable: false,
      components: {
        'downstream:billing': { status: 'Unhealthy', description: expect.stringMatching(/^tools not loaded/) },
      },
    });
    // The report is public: the reason (an address) stays in the log.
    expect(JSON.stringify(some)).not.toContain('10.0.0.7');
  });

  it('says Degraded, and why, for an open circuit, a failed refresh, definitions left out and refused names', () => {
    const { components } = judgeDownstreams(
      [
        status('orders'),
        status('catalog', {
          lastError: { message: 'boom', at: AT },
          problems: ['tool "x" (#2): bad'],
          collisions: [{ tool: 'search', servedBy: 'legacy', refused: 'catalog' }],
        }),
      ],
      { breakerState: (name) => (name === 'orders' ? 'open' : 'half-open') },
    );
    expect(components['downstream:orders']).toEqual({
      status: 'Degraded',
      description: '3 tools served; circuit open: its calls fail fast until the break ends',
    });
    expect(components['downstream:catalog']).toEqual({
      status: 'Degraded',
      description: `3 tools served; circuit half-open: one probe call decides; the last read of its /gw/schema failed (${AT}); serving the tools read ${AT}; 1 tool definitions left out: tool "x" (#2): bad; tool "search" refused: downstream legacy serves a tool of that name`,
    });
  });

  it('for an OpenAPI downstream, names its document, says why it could not be used (without addresses) and lists the operations skipped', () => {
    const skipped = Array.from(
      { length: 7 },
      (_, index) => `POST /files/{id}/v${index} (upload${index}): its request body is multipart/form-data, not JSON`,
    );
    const broken = status('github', {
      lastError: {
        message:
          'the OpenAPI document is not valid YAML: bad indentation (at https://docs.internal/api.yaml, 10.1.2.3:8080, /etc/specs/api.yaml)',
        at: AT,
      },
      problems: skipped,
    });
    const { components } = judgeDownstreams([broken], { breakerState: closed, schemaOf: () => 'OpenAPI document' });
    const description = (components['downstream:github'] as { description: string }).description;
    expect(description).toContain(
      `the last read of its OpenAPI document failed (${AT}): the OpenAPI document is not valid YAML: bad indentation`,
    );
    expect(description).toContain(
      `7 tool definitions left out: ${skipped.slice(0, 5).join(' | ')} | and 2 more (see the log)`,
    );
    for (const address of ['docs.internal', '10.1.2.3', '/etc/specs']) expect(description).not.toContain(address);
  });

  it('lists only the downstreams that are not Healthy when asked (the single-key form)', () => {
    expect(judgeDownstreams([status('default')], { breakerState: closed, onlyUnhealthy: true }).components).toEqual({});
    expect(
      judgeDownstreams([status('default')], { breakerState: () => 'open', onlyUnhealthy: true }).components,
    ).toMatchObject({ 'downstream:default': { status: 'Degraded' } });
  });
});
