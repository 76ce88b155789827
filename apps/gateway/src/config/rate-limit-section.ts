import type { ConfigProblem } from '@tollgate/gateway-core/errors';
import { MAX_BURST, MAX_CALLS_PER_MINUTE, type RateLimit } from '@tollgate/gateway-core/store';

const SECTION = 'Gw:RateLimit';
const SETTINGS = { defaultcallsperminute: ['DefaultCallsPerMinute', MAX_CALLS_PER_MINUTE], defaultburst: ['DefaultBurst', MAX_BURST] } as const;

/**
 * `Gw:RateLimit:DefaultCallsPerMinute` and `Gw:RateLimit:DefaultBurst`: the
 * rate limit a new agent gets when its creation names none (management API,
 * dashboard, provisioned OAuth identities). Both or neither: a default with
 * a guessed half would limit agents in a way nobody chose. Neither (the
 * default): new agents have no rate limit. Problems are added by key.
 */
export function defaultRateLimitFromSection(entries: Readonly<Record<string, string>>, problems: ConfigProblem[]): RateLimit | null {
  const values: Partial<Record<keyof typeof SETTINGS, number>> = {};
  for (const [key, raw] of Object.entries(entries)) {
    const setting = SETTINGS[key.toLowerCase() as keyof typeof SETTINGS];
    if (setting === undefined) {
      problems.push({ path: `${SECTION}:${key}`, message: 'unknown setting (DefaultCallsPerMinute, DefaultBurst)' });
      continue;
    }
    const [name, max] = setting;
    const value = Number(raw.trim());
    if (raw.trim() === '' || !Number.isInteger(value) || value < 1 || value > max) {
      problems.push({ path: `${SECTION}:${name}`, message: `must be a whole number from 1 to ${max}` });
      continue;
    }
    values[key.toLowerCase() as keyof typeof SETTINGS] = value;
  }
  const { defaultcallsperminute: callsPerMinute, defaultburst: burst } = values;
  const given = Object.keys(entries).map((key) => key.toLowerCase());
  if (given.includes('defaultcallsperminute') !== given.includes('defaultburst')) {
    const missing = given.includes('defaultburst') ? 'DefaultCallsPerMinute' : 'DefaultBurst';
    problems.push({ path: `${SECTION}:${missing}`, message: 'is required when the other Gw:RateLimit default is set (set both, or neither for no default limit)' });
  }
  return callsPerMinute !== undefined && burst !== undefined ? { callsPerMinute, burst } : null;
}
