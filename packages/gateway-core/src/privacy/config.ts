import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { TOOL_NAME_PATTERN } from '../tools/definition.js';
import { compileRule, RuleProblem, type PrivacyRule } from './custom-rule.js';
import { DETECTOR_NAMES, isDetectorName, type DetectorName } from './detectors.js';
import { normalizeFieldName } from './field-names.js';

/** What one tool does differently from the global privacy settings. */
export interface ToolPrivacyOverride {
  /** `false` returns this tool's responses unfiltered; `true` filters them even when privacy is off globally. */
  enabled?: boolean;
  /** Field names redacted for this tool on top of the global ones. */
  fields?: string[];
  /** Detectors off for this tool on top of the globally disabled ones. */
  disabledDetectors?: DetectorName[];
}

/**
 * The privacy settings. Everything is optional: the defaults filter every
 * response with every detector and the default field names.
 */
export interface PrivacyConfig {
  /** Defaults to true. */
  enabled?: boolean;
  /** Field names redacted on top of `DEFAULT_REDACTED_FIELDS`. */
  fields?: string[];
  disabledDetectors?: DetectorName[];
  rules?: PrivacyRule[];
  /** Keyed by tool name. */
  tools?: Record<string, ToolPrivacyOverride>;
}

const flag = z.boolean({ error: 'must be true or false' });

const fieldName = z
  .string({ error: 'must be a string' })
  .trim()
  .refine((name) => normalizeFieldName(name) !== '', 'must hold a letter or a digit');

const detectorName = z
  .string({ error: 'must be a string' })
  .refine(isDetectorName, `is not a detector (known: ${DETECTOR_NAMES.join(', ')})`) as z.ZodType<DetectorName>;

const ruleSchema = z
  .strictObject({
    name: z.string({ error: 'is required' }),
    pattern: z.string({ error: 'is required' }),
    flags: z.string().optional(),
    replacement: z.string().optional(),
  })
  .superRefine((rule, context) => {
    try {
      compileRule(rule);
    } catch (error) {
      if (!(error instanceof RuleProblem)) throw error;
      context.addIssue({ code: 'custom', path: [error.field], message: error.message });
    }
  });

const toolSchema = z.strictObject({
  enabled: flag.optional(),
  fields: z.array(fieldName).optional(),
  disabledDetectors: z.array(detectorName).optional(),
});

const configSchema = z.strictObject({
  enabled: flag.optional(),
  fields: z.array(fieldName).optional(),
  disabledDetectors: z.array(detectorName).optional(),
  rules: z.array(ruleSchema).optional(),
  tools: z.record(z.string().regex(TOOL_NAME_PATTERN, 'is not a valid tool name'), toolSchema).optional(),
});

/**
 * Validates privacy settings given as data (from code or parsed JSON). The
 * first problem throws a ConfigError at its option path under `privacy`:
 * `privacy.rules.0.pattern`, `privacy.tools.get_order.disabledDetectors.1`,
 * `privacy` itself when the value is not an object.
 */
export function parsePrivacyConfig(input: unknown): PrivacyConfig {
  const refuse = (path: readonly PropertyKey[], message: string) =>
    new ConfigError([{ path: ['privacy', ...path].map(String).join('.'), message }]);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw refuse([], 'must be a JSON object');
  const parsed = configSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  if (issue.code === 'unrecognized_keys')
    throw refuse([...issue.path, issue.keys[0] as string], 'is not a privacy setting');
  throw refuse(issue.path, issue.message);
}
