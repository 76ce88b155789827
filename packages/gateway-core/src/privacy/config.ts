import { readFileSync } from 'node:fs';
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
 * The privacy settings (`Gw:Privacy:*`, or a rules file of the same shape in
 * JSON). Everything is optional: the defaults filter every response with
 * every detector and the default field names.
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

export const PRIVACY_CONFIG_KEY = 'Gw:Privacy';
export const PRIVACY_RULES_FILE_KEY = 'Gw:Privacy:RulesFile';

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

type IssuePath = readonly PropertyKey[];

/** Validates a privacy configuration given in code; problems name `Gw:Privacy` and the JSON path. */
export function parsePrivacyConfig(input: unknown): PrivacyConfig {
  return validate(input, (path, message) => new ConfigError(PRIVACY_CONFIG_KEY, `${jsonPath(path)}: ${message}`));
}

/**
 * Reads and validates a rules file (JSON, the shape of `PrivacyConfig`). A
 * relative path is relative to the working directory.
 */
export function readPrivacyRulesFile(path: string, readFile: (path: string) => string = readUtf8): PrivacyConfig {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    throw new ConfigError(PRIVACY_RULES_FILE_KEY, `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(PRIVACY_RULES_FILE_KEY, `${path} is not valid JSON (${(error as Error).message})`);
  }
  return validate(input, (at, message) => new ConfigError(PRIVACY_RULES_FILE_KEY, `${path}: ${jsonPath(at)}: ${message}`));
}

export interface PrivacySectionOptions {
  /** Reads the rules file; `fs.readFileSync` by default. */
  readFile?: (path: string) => string;
}

/**
 * The privacy settings from the configuration section `Gw:Privacy`, flattened
 * with keys relative to it (`Fields:0`, `Rules:0:Pattern`, `Tools:get_order:Enabled`,
 * `RulesFile`; case-insensitive names). The rules file, if any, is read first
 * and the keys add to it: lists are appended, `Enabled` overrides. Any problem
 * throws a ConfigError naming the key to fix.
 */
export function privacyConfigFromSection(section: Readonly<Record<string, string>>, options: PrivacySectionOptions = {}): PrivacyConfig {
  const { input, rulesFile } = sectionToInput(section);
  const fromKeys = validate(input, (path, message) => new ConfigError(sectionKey(path), message));
  if (rulesFile === undefined) return fromKeys;
  return mergePrivacyConfigs(readPrivacyRulesFile(rulesFile, options.readFile), fromKeys);
}

function validate(input: unknown, problem: (path: IssuePath, message: string) => ConfigError): PrivacyConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw problem([], 'must be a JSON object');
  const parsed = configSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  if (issue.code === 'unrecognized_keys') {
    throw problem([...issue.path, issue.keys[0] as string], 'is not a privacy setting');
  }
  throw problem(issue.path, issue.message);
}

function mergePrivacyConfigs(base: PrivacyConfig, over: PrivacyConfig): PrivacyConfig {
  const tools: Record<string, ToolPrivacyOverride> = { ...base.tools };
  for (const [name, tool] of Object.entries(over.tools ?? {})) {
    const earlier = tools[name] ?? {};
    tools[name] = {
      enabled: tool.enabled ?? earlier.enabled,
      fields: [...(earlier.fields ?? []), ...(tool.fields ?? [])],
      disabledDetectors: [...(earlier.disabledDetectors ?? []), ...(tool.disabledDetectors ?? [])],
    };
  }
  return {
    enabled: over.enabled ?? base.enabled,
    fields: [...(base.fields ?? []), ...(over.fields ?? [])],
    disabledDetectors: [...(base.disabledDetectors ?? []), ...(over.disabledDetectors ?? [])],
    rules: [...(base.rules ?? []), ...(over.rules ?? [])],
    tools,
  };
}

function readUtf8(path: string): string {
  return readFileSync(path, 'utf8');
}

/** `rules[0].pattern`, `tools.get_order.fields[1]`. */
function jsonPath(path: IssuePath): string {
  if (path.length === 0) return '(top level)';
  return path.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : `${i === 0 ? '' : '.'}${String(segment)}`)).join('');
}

// ---- Flat configuration keys --------------------------------------------------

const LIST_SETTINGS = { fields: 'fields', disableddetectors: 'disabledDetectors' } as const;
const RULE_SETTINGS = { name: 'name', pattern: 'pattern', flags: 'flags', replacement: 'replacement' } as const;
const EXPECTED_KEYS =
  'expected Enabled, RulesFile, Fields:<n>, DisabledDetectors:<n>, Rules:<n>:Name|Pattern|Flags|Replacement, or Tools:<tool>:Enabled|Fields:<n>|DisabledDetectors:<n>';

/** `['tools', 'get_order', 'fields', 0]` → `Gw:Privacy:Tools:get_order:Fields:0`. */
function sectionKey(path: IssuePath): string {
  const segments = path.map((segment, i) => {
    const text = String(segment);
    return path[i - 1] === 'tools' ? text : text.charAt(0).toUpperCase() + text.slice(1);
  });
  return [PRIVACY_CONFIG_KEY, ...segments].join(':');
}

/** Lists by their path in the JSON shape (`['fields']`, `['tools', 'get_order', 'fields']`). */
type Lists = Map<string, { path: string[]; entries: Map<number, string> }>;

/** Rebuilds the JSON shape from flat keys, so both sources share one validation. */
function sectionToInput(section: Readonly<Record<string, string>>): { input: Record<string, unknown>; rulesFile?: string } {
  const input: Record<string, unknown> = {};
  const lists: Lists = new Map();
  const rules = new Map<number, Record<string, string>>();
  const tools: Record<string, Record<string, unknown>> = {};
  let rulesFile: string | undefined;

  for (const [key, value] of Object.entries(section)) {
    const fail = (message: string) => new ConfigError(`${PRIVACY_CONFIG_KEY}:${key}`, message);
    const [head = '', ...rest] = key.split(':').map((segment) => segment.trim());
    const setting = head.toLowerCase();
    if (setting === 'enabled' && rest.length === 0) input.enabled = toFlag(value);
    else if (setting === 'rulesfile' && rest.length === 0) {
      rulesFile = value.trim();
      if (rulesFile === '') throw fail('must be a file path');
    } else if (setting in LIST_SETTINGS && rest.length === 1) {
      addToList(lists, [LIST_SETTINGS[setting as keyof typeof LIST_SETTINGS]], rest[0] as string, value, fail);
    } else if (setting === 'rules' && rest.length === 2) {
      const property = RULE_SETTINGS[(rest[1] as string).toLowerCase() as keyof typeof RULE_SETTINGS];
      if (property === undefined) throw fail(`is not a rule setting (expected Name, Pattern, Flags or Replacement)`);
      const index = listIndex(rest[0] as string, fail);
      rules.set(index, { ...rules.get(index), [property]: value });
    } else if (setting === 'tools' && rest.length >= 2) {
      const [tool, toolSetting = '', ...toolRest] = rest as [string, ...string[]];
      const entry = (tools[tool] ??= {});
      const name = toolSetting.toLowerCase();
      if (name === 'enabled' && toolRest.length === 0) entry.enabled = toFlag(value);
      else if (name in LIST_SETTINGS && toolRest.length === 1) {
        addToList(lists, ['tools', tool, LIST_SETTINGS[name as keyof typeof LIST_SETTINGS]], toolRest[0] as string, value, fail);
      } else throw fail('is not a tool privacy setting (expected Enabled, Fields:<n> or DisabledDetectors:<n>)');
    } else throw fail(`is not a privacy setting (${EXPECTED_KEYS})`);
  }

  for (const { path, entries } of lists.values()) {
    const values = denseList(entries, path);
    const [first, tool, toolList] = path as [string, string?, string?];
    if (tool === undefined) input[first] = values;
    else (tools[tool] as Record<string, unknown>)[toolList as string] = values;
  }
  if (rules.size > 0) input.rules = denseList(rules, ['rules']);
  if (Object.keys(tools).length > 0) input.tools = tools;
  return rulesFile === undefined ? { input } : { input, rulesFile };
}

function addToList(lists: Lists, path: string[], index: string, value: string, fail: (message: string) => ConfigError): void {
  const id = path.join('\0');
  let list = lists.get(id);
  if (list === undefined) lists.set(id, (list = { path, entries: new Map() }));
  list.entries.set(listIndex(index, fail), value);
}

function listIndex(segment: string, fail: (message: string) => ConfigError): number {
  if (!/^\d{1,4}$/.test(segment)) throw fail('list index must be a whole number (0, 1, 2 …)');
  return Number(segment);
}

/** Indexes must count 0, 1, 2 … so a problem's key is the key the user wrote. */
function denseList<T>(entries: Map<number, T>, path: readonly string[]): T[] {
  const values: T[] = [];
  for (let index = 0; index < entries.size; index++) {
    if (!entries.has(index)) {
      throw new ConfigError(sectionKey([...path, index]), 'is missing: list indexes must count up from 0 without gaps');
    }
    values.push(entries.get(index) as T);
  }
  return values;
}

function toFlag(value: string): boolean | string {
  const lowered = value.trim().toLowerCase();
  return lowered === 'true' ? true : lowered === 'false' ? false : value;
}
