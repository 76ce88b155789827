import { describe, expect, it } from 'vitest';
import { floorLeaves, judge, renderTables, TARGETS } from './report.mjs';

const cpu = (usPerCall) => ({ cpu: { usPerCall, otherBusyCores: 0 }, requestsPerSec: 1000, latencyMs: { p50: 1, p99: 2 }, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, calls: 3000, cutShort: false });
const added = (p50, p99 = p50 * 3) => ({ pairs: 1000, addedUs: { p50, p90: p50 * 2, p99, mean: p50 }, directUs: { p50: 200 } });

/** A run's results as bench/run.mjs writes them, with only what the report reads. */
function results({ bare = 100, gateway = 400, hit = 180, peer = 360, floor = 210, floorHit = 60, latency = {} } = {}) {
  const throughput = { direct: cpu(50), bareProxy: cpu(bare), sdkPeer: cpu(peer), gatewayCacheOff: cpu(gateway), gatewayCacheOn: cpu(hit) };
  if (floor !== null) throughput.floorProxy = cpu(floor);
  if (floorHit !== null) throughput.floorHit = cpu(floorHit);
  return {
    settings: { connections: 16, rounds: 3, calls: 3000, workers: 2 },
    throughput,
    latency: { bareProxy: added(290), gatewayCacheOff: added(780), ...(latency.floor !== null && { floorProxy: added(latency.floor ?? 640) }) },
    memory: { bareProxy: { rssMb: 90, peakRssMb: 90 }, gatewayCacheOff: { rssMb: 270, peakRssMb: 271 }, gatewayCacheOn: { rssMb: 286, peakRssMb: 286 } },
    store: { sequential: { gatewayCacheOff: { roundTrips: 1.92, commands: { total: 15, perCommand: { evalsha: 4 } } } }, underLoad: {} },
  };
}

const verdict = (lines, start) => lines.find((line) => line.target.startsWith(start));

describe('judge', () => {
  it('judges each CPU target by its ratio to the bare proxy, at the boundary included, never by the rounded ratio', () => {
    const lines = judge(results({ bare: 100, gateway: 200, hit: 100, peer: 400 }));
    expect(verdict(lines, 'CPU per call: gateway').pass).toBe(true);
    expect(verdict(lines, 'CPU per call: cache hit').pass).toBe(true);
    expect(verdict(lines, 'CPU per call: SDK peer').pass).toBe(true);
    const over = judge(results({ bare: 100, gateway: 201, hit: 101, peer: 401 }));
    expect(verdict(over, 'CPU per call: gateway')).toMatchObject({ pass: false, value: 2.01 });
    expect(verdict(over, 'CPU per call: cache hit')).toMatchObject({ pass: false, value: 1.01 });
    // 401 / 201 = 1.995: shown as 2×, still short of it.
    expect(verdict(over, 'CPU per call: SDK peer')).toMatchObject({ pass: false, value: 2 });
  });

  it('judges added latency over the bare proxy’s own', () => {
    const lines = judge(results());
    expect(verdict(lines, 'added latency p50')).toMatchObject({ value: 780 - 290, pass: false });
    expect(TARGETS.addedP50OverBareUs).toBe(250);
  });

  it('fails the clean-run line when any row had errors or wrong bodies', () => {
    const run = results();
    run.throughput.floorHit.mismatches = 1;
    expect(verdict(judge(run), 'no errors').pass).toBe(false);
  });
});

describe('floorLeaves', () => {
  it('says what each target leaves once the floor is paid, negative when the floor alone misses it', () => {
    const [off, hit, latency] = floorLeaves(results({ bare: 100, gateway: 410, floor: 213, hit: 183, floorHit: 57, latency: { floor: 638 } }));
    expect(off).toMatchObject({ target: 200, floor: 213, leftForTheRest: -13, gateway: 410, gatewayAboveFloor: 197, floorVsBare: 2.13 });
    expect(hit).toMatchObject({ target: 100, floor: 57, leftForTheRest: 43, gateway: 183, gatewayAboveFloor: 126 });
    expect(latency).toMatchObject({ target: 250, floor: 638 - 290, leftForTheRest: 250 - 348, gateway: 780 - 290, gatewayAboveFloor: 780 - 638 });
  });

  it('leaves out what an older run, without floor rows, cannot tell', () => {
    expect(floorLeaves(results({ floor: null, floorHit: null, latency: { floor: null } }))).toEqual([]);
    const run = results({ floor: null, floorHit: null, latency: { floor: null } });
    run.verdicts = judge(run);
    expect(renderTables(run)).not.toContain('what the floor leaves');
  });

  it('prints the table after the verdicts', () => {
    const run = results();
    run.verdicts = judge(run);
    const text = renderTables(run);
    expect(text.indexOf('what the floor leaves')).toBeGreaterThan(text.indexOf('| target | goal |'));
  });
});
