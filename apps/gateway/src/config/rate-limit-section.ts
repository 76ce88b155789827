import type { ConfigProblem } from '@tollgate/gateway-core/errors';
import { MAX_BURST, MAX_CALLS_PER_MINUTE, type RateLimit } from '@tollgate/gateway-core/store';
import { z } from 'zod';
import { declareKeys, type Field } from './declare.js';

/** The section the pair is read from as a whole. */
export const RATE_LIMIT_SECTION = 'Gw:RateLimit';
const SECTION = RATE_LIMIT_SECTION;
const NEITHER = 'unset (new agents have no rate limit)';
const APPLIES =
  'a new agent gets when its creation names none (management API, dashboard, and agents provisioned for OAuth ' +
  'identities); set both or neither. Existing agents keep theirs; an agent created with `rateLimit: null` has ' +
  'none.';

function wholeNumberUpTo(max: number) {
  const inRange = (value: string) =>
    value !== '' && Number.isInteger(Number(value)) && Number(value) >= 1 && Number(value) <= max;
  return {
    schema: z
      .string()
      .trim()
      .refine(inRange, { error: `must be a whole number from 1 to ${max}` })
      .transform(Number),
    type: `whole number 1–${max}`,
  } satisfies Field;
}

/**
 * `Gw:RateLimit:DefaultCallsPerMinute` and `Gw:RateLimit:DefaultBurst`: the
 * rate limit a new agent gets when its creation names none. Read together by
 * `defaultRateLimitFromSection`, not one by one.
 */
export const RATE_LIMIT_KEYS = declareKeys({
  callsPerMinute: {
    name: `${SECTION}:DefaultCallsPerMinute`,
    field: wholeNumberUpTo(MAX_CALLS_PER_MINUTE),
    defaultIs: NEITHER,
    description:
      `The calls per minute of the rate limit (see [Rate limits](../operations/reliability.md#rate-limits)) ` +
      `${APPLIES}`,
  },
  burst: {
    name: `${SECTION}:DefaultBurst`,
    field: wholeNumberUpTo(MAX_BURST),
    defaultIs: NEITHER,
    description: `The burst of the rate limit ${APPLIES}`,
  },
});

type Setting = keyof typeof RATE_LIMIT_KEYS;
const SETTINGS = Object.keys(RATE_LIMIT_KEYS) as Setting[];
/** The part of a key's name after `Gw:RateLimit:`, as written there (`DefaultBurst`). */
const settingName = (setting: Setting) => RATE_LIMIT_KEYS[setting].name.slice(SECTION.length + 1);
const SETTING_BY_NAME = new Map(SETTINGS.map((setting) => [settingName(setting).toLowerCase(), setting]));

/**
 * The rate limit a new agent gets when its creation names none (management
 * API, dashboard, provisioned OAuth identities). Both or neither: a default
 * with a guessed half would limit agents in a way nobody chose. Neither (the
 * default): new agents have no rate limit. Problems are added by key.
 */
export function defaultRateLimitFromSection(
  entries: Readonly<Record<string, string>>,
  problems: ConfigProblem[],
): RateLimit | null {
  const values: Partial<Record<Setting, number>> = {};
  const given = new Set<Setting>();
  for (const [written, raw] of Object.entries(entries)) {
    const setting = SETTING_BY_NAME.get(written.toLowerCase());
    if (setting === undefined) {
      problems.push({
        path: `${SECTION}:${written}`,
        message: `unknown setting (${SETTINGS.map(settingName).join(', ')})`,
      });
      continue;
    }
    given.add(setting);
    const parsed = RATE_LIMIT_KEYS[setting].field.schema.safeParse(raw);
    if (parsed.success) values[setting] = parsed.data;
    else
      for (const issue of parsed.error.issues)
        problems.push({ path: RATE_LIMIT_KEYS[setting].name, message: issue.message });
  }
  if (given.size === 1) {
    const missing = SETTINGS.find((setting) => !given.has(setting)) as Setting;
    problems.push({
      path: RATE_LIMIT_KEYS[missing].name,
      message: 'is required when the other Gw:RateLimit default is set (set both, or neither for no default limit)',
    });
  }
  const { callsPerMinute, burst } = values;
  return callsPerMinute !== undefined && burst !== undefined ? { callsPerMinute, burst } : null;
}
