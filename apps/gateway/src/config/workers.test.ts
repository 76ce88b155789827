import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway-config.js';
import { readEnvironment } from './sources.js';
import { MAX_WORKERS, workersField } from './workers.js';
import { configProblems } from './config-test-support.js';

const base = {
  Gw__LicenseKey: 'lic-123',
  Gw__Jwt__SigningKey: 'k'.repeat(32),
  Gw__ToolRegistry__DownstreamBaseUrl: 'http://127.0.0.1:8081',
};
const REDIS = { ConnectionStrings__Store: 'redis://127.0.0.1:6379' };

const parse = (env: Record<string, string>) => parseGatewayConfig(readEnvironment(env)).config;

function problemsOf(env: Record<string, string>): string[] {
  return configProblems(() => parse(env));
}

describe('Gw:Http:Workers', () => {
  it('defaults to one process (no cluster), with or without Redis', () => {
    expect(parse(base).http.workers).toBe(1);
    expect(parse({ ...base, ...REDIS }).http.workers).toBe(1);
  });

  it('takes a whole number, or auto for the cores available', () => {
    expect(parse({ ...base, ...REDIS, Gw__Http__Workers: '3' }).http.workers).toBe(3);
    const auto = workersField(() => 6);
    expect(auto.parse('auto')).toBe(6);
    expect(auto.parse(' AUTO ')).toBe(6);
    expect(auto.parse(undefined)).toBe(1);
  });

  it('refuses zero, fractions, words and absurd counts, naming the key', () => {
    for (const value of ['0', '1.5', '-2', 'many', '']) {
      expect(problemsOf({ ...base, ...REDIS, Gw__Http__Workers: value })).toEqual([
        'Gw:Http:Workers: must be a positive whole number or auto',
      ]);
    }
    expect(problemsOf({ ...base, ...REDIS, Gw__Http__Workers: String(MAX_WORKERS + 1) })).toEqual([
      `Gw:Http:Workers: must be at most ${MAX_WORKERS}`,
    ]);
  });

  it('refuses more than one worker on the in-memory store: each would keep its own sessions and budgets', () => {
    const problems = problemsOf({ ...base, Gw__Http__Workers: '2' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^Gw:Http:Workers: is 2, but more than one worker needs a shared store: set ConnectionStrings:Store/,
    );
    // One worker on the memory store is the ordinary single process.
    expect(parse({ ...base, Gw__Http__Workers: '1' }).http.workers).toBe(1);
  });
});
