import { AggregatorRegistry, Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TalliedCounter } from './tallied-counter.js';

const COUNTED: [string, string, number][] = [
  ['get_order', 'ok', 1],
  ['search', 'ok', 1],
  ['get_order', 'upstream-error', 1],
  ['get_order', 'ok', 120],
  ['a "quoted"\\name', 'ok', 0],
];

/** The same increments in prom-client's own Counter and in a TalliedCounter, each in its own registry. */
function both(counted = COUNTED) {
  const theirs = new Registry();
  const ours = new Registry();
  const counter = new Counter({
    name: 'x_total',
    help: 'help text',
    labelNames: ['tool', 'outcome'],
    registers: [theirs],
  });
  const tallied = new TalliedCounter({
    name: 'x_total',
    help: 'help text',
    labelNames: ['tool', 'outcome'],
    registry: ours,
  });
  const count = (rows: [string, string, number][]) => {
    for (const [tool, outcome, by] of rows) {
      counter.inc({ tool, outcome }, by);
      tallied.add(tool, outcome, by);
    }
  };
  count(counted);
  return { theirs, ours, tallied, count };
}

describe('TalliedCounter', () => {
  it('exposes exactly the text of a prom-client Counter counted the same way, a series that counted 0 included', async () => {
    const { theirs, ours } = both();
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('x_total{tool="get_order",outcome="ok"} 121');
    expect(text).toContain('x_total{tool="a \\"quoted\\"\\\\name",outcome="ok"} 0');
  });

  it('hands over only what was counted since the last scrape, however often it is scraped', async () => {
    const { theirs, ours, count } = both();
    await ours.metrics();
    await ours.getMetricsAsJSON();
    count([
      ['search', 'ok', 2],
      ['new_tool', 'ok', 1],
    ]);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('x_total{tool="search",outcome="ok"} 3');
  });

  it('merges across a cluster as the Counter does', async () => {
    const first = both();
    const second = both(COUNTED.slice(1));
    const merged = (registries: Registry[]) => Promise.all(registries.map((registry) => registry.getMetricsAsJSON()));
    const ourMerge = AggregatorRegistry.aggregate((await merged([first.ours, second.ours])) as never);
    const theirMerge = AggregatorRegistry.aggregate((await merged([first.theirs, second.theirs])) as never);
    expect(await ourMerge.metrics()).toBe(await theirMerge.metrics());
  });

  it('refuses a negative or infinite increase when counting, not at the next scrape', async () => {
    const { ours, tallied } = both();
    expect(() => tallied.add('get_order', 'ok', -1)).toThrow();
    expect(() => tallied.add('get_order', 'ok', Number.POSITIVE_INFINITY)).toThrow();
    expect(await ours.metrics()).toContain('x_total{tool="get_order",outcome="ok"} 121');
  });

  it('labels a one-label counter with that label only', async () => {
    const registry = new Registry();
    const tallied = new TalliedCounter({ name: 'y_total', help: 'h', labelNames: ['tier'], registry });
    tallied.add('exact');
    tallied.add('exact');
    expect(await registry.metrics()).toBe('# HELP y_total h\n# TYPE y_total counter\ny_total{tier="exact"} 2\n');
  });
});
