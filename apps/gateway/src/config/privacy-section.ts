import { readFileSync } from 'node:fs';
import { parsePrivacyConfig, type PrivacyConfig, type ToolPrivacyOverride } from '@tollgate/gateway-core';
import { ConfigError, type ConfigProblem } from '@tollgate/gateway-core/errors';
import { z } from 'zod';
import { declareKeys, fieldOf, matchKey, type Field } from './declare.js';

/**
 * The privacy settings from their two sources: keys under `Gw:Privacy` and
 * the JSON rules file `Gw:Privacy:RulesFile` names. Both are rebuilt into the
 * core's `PrivacyConfig` shape and validated by the core's
 * `parsePrivacyConfig`; its option paths (`privacy.rules.0.pattern`) are
 * turned back into the key or the place in the file the user wrote.
 */

const SECTION = 'Gw:Privacy';
const TOOL = `${SECTION}:Tools:<tool>`;
const RULES = '[Privacy rules](../../packages/gateway-core/docs/reference.md#privacy-rules)';

const text = { schema: z.string(), type: 'text' } satisfies Field;
/** `true` and `false` in any case become booleans; anything else is left for the core to refuse. */
const flag = { schema: z.string().transform(toFlag), type: 'boolean' } satisfies Field;

/**
 * `Gw:Privacy:*`: the privacy filter on every downstream answer. Read whole by
 * `privacyConfigFromSection` into gateway-core's `PrivacyConfig` (each key's
 * JSON property is its last fixed segment, `Pattern` → `pattern`), and
 * validated by the core. A list's items count up from 0 without gaps.
 */
export const PRIVACY_KEYS = declareKeys({
  enabled: {
    name: `${SECTION}:Enabled`,
    field: flag,
    defaultIs: '`true`',
    description: 'The privacy filter on every downstream response.',
  },
  rulesFile: {
    name: `${SECTION}:RulesFile`,
    field: { schema: z.string().trim().min(1, 'must be a file path'), type: 'file path' },
    defaultIs: 'none',
    description:
      'A JSON file of privacy settings (the shape of `PrivacyConfig`), read first; the keys here add to it ' +
      '(lists appended, `Enabled` overrides). A relative path is relative to the working directory.',
  },
  fields: {
    name: `${SECTION}:Fields:<n>`,
    field: text,
    defaultIs: 'none (the default field names only)',
    description: `A field name whose value is redacted whole, on top of the default ones; see ${RULES}.`,
  },
  disabledDetectors: {
    name: `${SECTION}:DisabledDetectors:<n>`,
    field: text,
    defaultIs: 'none (every detector on)',
    description: 'A detector turned off (`email`, `phone`, `card`, `ssn`, `iban`, `ipv4`, `ipv6`, `jwt`, …).',
  },
  ruleName: {
    name: `${SECTION}:Rules:<n>:Name`,
    field: text,
    defaultIs: '— (required in a rule)',
    description: 'An extra regex rule: its name, the kind its redactions count as (`[REDACTED:<name>]`).',
  },
  rulePattern: {
    name: `${SECTION}:Rules:<n>:Pattern`,
    field: text,
    defaultIs: '— (required in a rule)',
    description: "The rule's regular expression. A bad rule refuses start-up.",
  },
  ruleFlags: {
    name: `${SECTION}:Rules:<n>:Flags`,
    field: text,
    defaultIs: 'none',
    description: "The regular expression's flags: `m` and `s`, each at most once (the rules run in linear time).",
  },
  ruleReplacement: {
    name: `${SECTION}:Rules:<n>:Replacement`,
    field: text,
    defaultIs: '`[REDACTED:<name>]`',
    description: `What a match becomes; see ${RULES}.`,
  },
  toolEnabled: {
    name: `${TOOL}:Enabled`,
    field: flag,
    defaultIs: '`Gw:Privacy:Enabled`',
    description: "`false` returns this tool's responses unfiltered; `true` filters them even when privacy is off.",
  },
  toolFields: {
    name: `${TOOL}:Fields:<n>`,
    field: text,
    defaultIs: 'none',
    description: 'A field name redacted for this tool on top of the global ones.',
  },
  toolDisabledDetectors: {
    name: `${TOOL}:DisabledDetectors:<n>`,
    field: text,
    defaultIs: 'none',
    description: 'A detector off for this tool on top of the globally disabled ones.',
  },
});

type Setting = keyof typeof PRIVACY_KEYS;
const RULES_FILE_KEY = PRIVACY_KEYS.rulesFile.name;

export interface PrivacySectionOptions {
  /** Reads the rules file; `fs.readFileSync` by default. */
  readFile?: (path: string) => string;
}

/**
 * The privacy settings from the keys under `Gw:Privacy`, flattened with names
 * relative to it (`Fields:0`, `Rules:0:Pattern`, `Tools:get_order:Enabled`,
 * `RulesFile`; case-insensitive). The rules file, if any, is read first and
 * the keys add to it: lists are appended, `Enabled` overrides. A problem
 * throws a ConfigError naming the key to fix.
 */
export function privacyConfigFromSection(
  section: Readonly<Record<string, string>>,
  options: PrivacySectionOptions = {},
): PrivacyConfig {
  const { input, rulesFile } = sectionToInput(section);
  const fromKeys = validated(input, (segments, message) => ({ path: sectionKey(segments), message }));
  if (rulesFile === undefined) return fromKeys;
  return mergePrivacyConfigs(readPrivacyRulesFile(rulesFile, options.readFile), fromKeys);
}

/**
 * Reads and validates a rules file (JSON, the shape of `PrivacyConfig`). A
 * relative path is relative to the working directory. Problems are reported
 * at `Gw:Privacy:RulesFile`, naming the file and the place in it.
 */
export function readPrivacyRulesFile(path: string, readFile: (path: string) => string = readUtf8): PrivacyConfig {
  const refuse = (message: string) => new ConfigError([{ path: RULES_FILE_KEY, message }]);
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    throw refuse(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw refuse(`${path} is not valid JSON (${(error as Error).message})`);
  }
  return validated(input, (segments, message) => ({
    path: RULES_FILE_KEY,
    message: `${path}: ${jsonPath(segments)}: ${message}`,
  }));
}

type Segments = readonly (string | number)[];

/** The core's validation, its problems placed by `at`. */
function validated(input: unknown, at: (segments: Segments, message: string) => ConfigProblem): PrivacyConfig {
  try {
    return parsePrivacyConfig(input);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.problems.map(({ path, message }) => at(segmentsOf(path, input), message)));
  }
}

/**
 * `privacy.tools.crm.get_customer.fields.0` → `['tools', 'crm.get_customer', 'fields', 0]`.
 * Tool names may hold dots, so each name is taken from the input the path
 * points into (the longest name that fits); a name the input lacks (a
 * required setting left out) is one dotted segment.
 */
function segmentsOf(path: string, input: unknown): Segments {
  const segments: (string | number)[] = [];
  let rest = path.startsWith('privacy.') ? path.slice('privacy.'.length) : '';
  let node = input;
  while (rest !== '') {
    const names = typeof node === 'object' && node !== null ? Object.keys(node) : [];
    const fitting = names
      .filter((name) => rest === name || rest.startsWith(`${name}.`))
      .sort((a, b) => b.length - a.length);
    const name = fitting[0] ?? (rest.split('.')[0] as string);
    segments.push(Array.isArray(node) ? Number(name) : name);
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[name] : undefined;
    rest = rest.slice(name.length + 1);
  }
  return segments;
}

/** `['tools', 'get_order', 'fields', 0]` → `Gw:Privacy:Tools:get_order:Fields:0`. */
function sectionKey(segments: Segments): string {
  const names = segments.map((segment, i) => {
    const text = String(segment);
    return i === 1 && segments[0] === 'tools' ? text : text.charAt(0).toUpperCase() + text.slice(1);
  });
  return [SECTION, ...names].join(':');
}

/** `rules[0].pattern`, `tools.get_order.fields[1]`. */
function jsonPath(segments: Segments): string {
  if (segments.length === 0) return '(top level)';
  return segments
    .map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : `${i === 0 ? '' : '.'}${segment}`))
    .join('');
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

// ---- Flat keys → the PrivacyConfig shape ---------------------------------------

const EXPECTED_KEYS =
  'expected Enabled, RulesFile, Fields:<n>, DisabledDetectors:<n>, Rules:<n>:Name|Pattern|Flags|Replacement, or ' +
  'Tools:<tool>:Enabled|Fields:<n>|DisabledDetectors:<n>';

/** Lists by their path in the JSON shape (`['fields']`, `['tools', 'get_order', 'fields']`). */
type Lists = Map<string, { path: string[]; entries: Map<number, string> }>;

/** A key's property in the JSON shape: its last fixed segment in lower camel case (`Pattern` → `pattern`). */
function propertyOf(setting: Setting): string {
  const fixed = PRIVACY_KEYS[setting].name.split(':').filter((segment) => !segment.startsWith('<'));
  const last = fixed.at(-1) as string;
  return last.charAt(0).toLowerCase() + last.slice(1);
}

/** Rebuilds the JSON shape from flat keys, so both sources share one validation. */
function sectionToInput(section: Readonly<Record<string, string>>): {
  input: Record<string, unknown>;
  rulesFile?: string;
} {
  const input: Record<string, unknown> = {};
  const lists: Lists = new Map();
  const rules = new Map<number, Record<string, string>>();
  const tools: Record<string, Record<string, unknown>> = {};
  let rulesFile: string | undefined;

  for (const [key, written] of Object.entries(section)) {
    const fail = (message: string) => new ConfigError([{ path: `${SECTION}:${key}`, message }]);
    const segments = key.split(':').map((segment) => segment.trim());
    const match = matchKey(PRIVACY_KEYS, [SECTION, ...segments].join(':'));
    if (match === undefined) throw fail(unmatched(segments));
    const parsed = fieldOf(PRIVACY_KEYS[match.id], false).schema.safeParse(written);
    if (!parsed.success) throw fail(parsed.error.issues[0]?.message ?? 'is not valid');
    const value = parsed.data;
    const [first, second] = match.parts as [string, string];
    const property = propertyOf(match.id);
    switch (match.id) {
      case 'enabled':
        input.enabled = value;
        break;
      case 'rulesFile':
        rulesFile = value as string;
        break;
      case 'fields':
      case 'disabledDetectors':
        addToList(lists, [property], first, value as string, fail);
        break;
      case 'ruleName':
      case 'rulePattern':
      case 'ruleFlags':
      case 'ruleReplacement': {
        const index = listIndex(first, fail);
        rules.set(index, { ...rules.get(index), [property]: value as string });
        break;
      }
      case 'toolEnabled':
        (tools[first] ??= {}).enabled = value;
        break;
      default:
        tools[first] ??= {};
        addToList(lists, ['tools', first, property], second, value as string, fail);
    }
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

/** Why a key under `Gw:Privacy` matched no declaration, told by the part it got right. */
function unmatched([head = '', ...rest]: string[]): string {
  const setting = head.toLowerCase();
  if (setting === 'rules' && rest.length === 2)
    return 'is not a rule setting (expected Name, Pattern, Flags or Replacement)';
  if (setting === 'tools' && rest.length >= 2)
    return 'is not a tool privacy setting (expected Enabled, Fields:<n> or DisabledDetectors:<n>)';
  return `is not a privacy setting (${EXPECTED_KEYS})`;
}

function addToList(
  lists: Lists,
  path: string[],
  index: string,
  value: string,
  fail: (message: string) => ConfigError,
): void {
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
      throw new ConfigError([
        { path: sectionKey([...path, index]), message: 'is missing: list indexes must count up from 0 without gaps' },
      ]);
    }
    values.push(entries.get(index) as T);
  }
  return values;
}

function toFlag(value: string): boolean | string {
  const lowered = value.trim().toLowerCase();
  return lowered === 'true' ? true : lowered === 'false' ? false : value;
}
