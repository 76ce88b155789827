import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BucketHistogram } from './bucket-histogram.js';

const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.01, 1];
/** Below, on and between the bounds, above the last one, and label values that need escaping. */
const OBSERVED: [string, number][] = [
  ['get_order', 0.00004],
  ['get_order', 0.0001],
  ['search', 0.0003],
  ['get_order', 0.00049],
  ['search', 0.7],
  ['get_order', 2.5],
  ['a "quoted"\\name', 0.001],
  ['search', 0],
];

/** The same observations in prom-client's own Histogram and in a BucketHistogram, each in its own registry. */
function both(observed = OBSERVED) {
  const theirs = new Registry();
  const ours = new Registry();
  const histogram = new Histogram({
    name: 'x_seconds',
    help: 'help text',
    labelNames: ['tool'],
    buckets: BUCKETS,
    registers: [theirs],
  });
  const bucketHistogram = new BucketHistogram('x_seconds', 'help text', 'tool', BUCKETS, ours);
  for (const [tool, value] of observed) {
    histogram.observe({ tool }, value);
    bucketHistogram.observe(tool, value);
  }
  return { theirs, ours, bucketHistogram };
}

describe('BucketHistogram', () => {
  it('exposes exactly the text of a prom-client Histogram fed the same observations', async () => {
    const { theirs, ours } = both();
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('x_seconds_bucket{le="0.00025",tool="get_order"} 2');
    expect(text).toContain('x_seconds_bucket{le="+Inf",tool="get_order"} 4');
    expect(text).toContain('x_seconds_count{tool="search"} 3');
  });

  it('answers the JSON a cluster scrape merges as the Histogram does, and merges to the same text', async () => {
    const first = both();
    const second = both(OBSERVED.slice(2));
    expect(await first.ours.getMetricsAsJSON()).toEqual(await first.theirs.getMetricsAsJSON());
    const merged = (registries: Registry[]) => Promise.all(registries.map((registry) => registry.getMetricsAsJSON()));
    const ourMerge = AggregatorRegistry.aggregate((await merged([first.ours, second.ours])) as never);
    const theirMerge = AggregatorRegistry.aggregate((await merged([first.theirs, second.theirs])) as never);
    expect(await ourMerge.metrics()).toBe(await theirMerge.metrics());
  });

  it('refuses a value that is not a number, as prom-client does, and forgets everything on a registry reset', async () => {
    const { ours, bucketHistogram } = both();
    expect(() => bucketHistogram.observe('get_order', Number.NaN)).toThrow(TypeError);
    ours.resetMetrics();
    expect(await ours.metrics()).toBe('# HELP x_seconds help text\n# TYPE x_seconds histogram\n');
  });
});
