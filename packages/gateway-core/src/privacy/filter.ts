import { parsePrivacyConfig, type PrivacyConfig, type ToolPrivacyOverride } from './config.js';
import { compileRule } from './custom-rule.js';
import { DETECTOR_NAMES, DETECTORS, type DetectorName } from './detectors.js';
import { DEFAULT_REDACTED_FIELDS, isCredentialKey, keyHint, normalizeFieldName, type KeyHint } from './field-names.js';
import { fold } from './normalise.js';
import { hintedStringKind, MAX_HINTED_STRING, numberKind, SMALLEST_CANDIDATE } from './hinted-values.js';
import { createScanner, redactionMarker, type RedactionCounts, type ScanRule, type Scanner } from './scanner.js';

/**
 * Nesting beyond this is replaced by `[REDACTED:depth]` rather than walked:
 * the forwarder already refuses deeper responses, and the filter must never
 * overflow the stack on a value handed to it some other way.
 */
export const MAX_FILTER_DEPTH = 256;

export interface PrivacyFilterResult {
  /** The filtered value; the input itself when nothing was redacted. */
  value: unknown;
  /** How many redactions of each kind: a detector name, a rule name, `field` or `depth`. */
  redactions: RedactionCounts;
}

export interface PrivacyFilter {
  filter(toolName: string, value: unknown): PrivacyFilterResult;
}

/** What one tool's responses go through, compiled once. */
interface Policy {
  enabled: boolean;
  fields: ReadonlySet<string>;
  scan: Scanner;
  /** The detectors on for this tool: JSON numbers and hinted values are checked for these. */
  detects: ReadonlySet<DetectorName>;
  /**
   * Keys already seen to be neither a redacted field nor holding anything to
   * redact. Responses repeat the same few keys thousands of times, so this
   * makes keys nearly free; bounded, and emptied when full.
   */
  plainKeys: Set<string>;
}

const MAX_PLAIN_KEYS = 4096;

/** Key → hint, the same few keys over and over; bounded, and emptied when full. */
const hints = new Map<string, KeyHint | null>();

function hintOf(key: string | undefined): KeyHint | undefined {
  if (key === undefined) return undefined;
  let hint = hints.get(key);
  if (hint === undefined) {
    if (hints.size >= MAX_PLAIN_KEYS) hints.clear();
    hint = keyHint(key) ?? null;
    hints.set(key, hint);
  }
  return hint ?? undefined;
}

/**
 * Builds the filter every downstream response goes through before token
 * counting, caching and audit. Validates the configuration (a ConfigError
 * names the problem) and compiles every pattern up front; `filter` is pure and
 * never mutates its input: changed containers are copied, untouched ones are
 * shared with the input.
 */
export function createPrivacyFilter(config: PrivacyConfig = {}): PrivacyFilter {
  const checked = parsePrivacyConfig(config);
  const customRules = (checked.rules ?? []).map(compileRule);
  const policyFor = (tool: ToolPrivacyOverride = {}): Policy => {
    const disabled = new Set([...(checked.disabledDetectors ?? []), ...(tool.disabledDetectors ?? [])]);
    return {
      enabled: tool.enabled ?? checked.enabled ?? true,
      fields: new Set(
        [...DEFAULT_REDACTED_FIELDS, ...(checked.fields ?? []), ...(tool.fields ?? [])].map(normalizeFieldName),
      ),
      scan: createScanner(scanRules(disabled, customRules)),
      detects: new Set(DETECTOR_NAMES.filter((name) => !disabled.has(name))),
      plainKeys: new Set(),
    };
  };
  const fallback = policyFor();
  const byTool = new Map(Object.entries(checked.tools ?? {}).map(([name, tool]) => [name, policyFor(tool)]));

  return {
    filter(toolName, value) {
      const policy = byTool.get(toolName) ?? fallback;
      const redactions: RedactionCounts = {};
      if (!policy.enabled) return { value, redactions };
      return { value: filterValue(value, 0, policy, redactions), redactions };
    },
  };
}

function scanRules(disabled: ReadonlySet<DetectorName>, customRules: readonly ScanRule[]): ScanRule[] {
  return [...DETECTORS.filter((detector) => !disabled.has(detector.kind)), ...customRules];
}

/**
 * `key` is the name the value (or the array holding it) is found under: it
 * may hint that a bare number or digit string is a card, phone or SSN number.
 */
function filterValue(value: unknown, depth: number, policy: Policy, counts: RedactionCounts, key?: string): unknown {
  if (typeof value === 'string') return filterString(value, policy, counts, key);
  if (typeof value === 'number') return filterNumber(value, policy, counts, key);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_FILTER_DEPTH) return redact('depth', counts);
  return Array.isArray(value)
    ? filterArray(value, depth, policy, counts, key)
    : filterObject(value as Record<string, unknown>, depth, policy, counts);
}

function filterString(text: string, policy: Policy, counts: RedactionCounts, key: string | undefined): string {
  const scanned = policy.scan(text, counts);
  if (scanned !== text || key === undefined || text.length > MAX_HINTED_STRING || !mayBeNumber(text)) return scanned;
  const hint = hintOf(key);
  const kind = hint === undefined ? undefined : hintedStringKind(fold(text)?.text ?? text, hint, policy.detects);
  return kind === undefined ? text : redact(kind, counts);
}

/** A hinted number is written starting with a digit, `+` or `(`, or a non-ASCII digit or space. */
function mayBeNumber(text: string): boolean {
  const first = text.charCodeAt(0);
  return (first >= 48 && first <= 57) || first === 43 || first === 40 || first >= 0x80;
}

/**
 * A number found to be a card, phone or SSN number becomes the marker string
 * (`"cc": 4111111111111111` → `"cc": "[REDACTED:card]"`): the value changes
 * type, which a client reading it as a number notices, rather than becoming a
 * made-up number it would take for real.
 */
function filterNumber(
  value: number,
  policy: Policy,
  counts: RedactionCounts,
  key: string | undefined,
): number | string {
  if (!(value >= SMALLEST_CANDIDATE)) return value;
  const kind = numberKind(value, hintOf(key), policy.detects);
  return kind === undefined ? value : redact(kind, counts);
}

function filterArray(
  items: readonly unknown[],
  depth: number,
  policy: Policy,
  counts: RedactionCounts,
  key: string | undefined,
): readonly unknown[] {
  let copy: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const filtered = filterValue(item, depth + 1, policy, counts, key);
    if (copy === undefined && filtered !== item) copy = items.slice(0, i);
    copy?.push(filtered);
  }
  return copy ?? items;
}

/**
 * Field rules look at the key as the downstream wrote it; keys are then
 * scanned like values, because a map keyed by email address leaks as much as
 * a list of them. Redacted keys that would collide get `#2`, `#3` … so no
 * entry silently replaces another.
 */
function filterObject(
  object: Record<string, unknown>,
  depth: number,
  policy: Policy,
  counts: RedactionCounts,
): Record<string, unknown> {
  const keys = Object.keys(object);
  let copy: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = object[key];
    const plain = policy.plainKeys.has(key);
    const isField = !plain && policy.fields.has(normalizeFieldName(key));
    const isSecret = !plain && !isField && policy.detects.has('credential') && isCredentialKey(key);
    const filtered =
      isField && item !== null
        ? redact('field', counts)
        : isSecret && isSecretValue(item)
          ? redact('credential', counts)
          : filterValue(item, depth + 1, policy, counts, key);
    const filteredKey = plain ? key : policy.scan(key, counts);
    if (!plain && !isField && !isSecret && filteredKey === key) rememberPlainKey(policy, key);
    if (copy === undefined && (filtered !== item || filteredKey !== key)) {
      copy = {};
      for (const earlier of keys.slice(0, i)) setOwn(copy, earlier, object[earlier]);
    }
    if (copy !== undefined) setOwn(copy, filteredKey === key ? key : unusedKey(copy, filteredKey), filtered);
  }
  return copy ?? object;
}

/**
 * Under a key naming a credential: a non-empty string or a number (a PIN).
 * `hasPassword: true`, `apiKey: null` and nested objects say nothing secret
 * (objects are walked as usual).
 */
function isSecretValue(value: unknown): boolean {
  return (typeof value === 'string' && value !== '') || typeof value === 'number';
}

function rememberPlainKey(policy: Policy, key: string): void {
  if (policy.plainKeys.size >= MAX_PLAIN_KEYS) policy.plainKeys.clear();
  policy.plainKeys.add(key);
}

function redact(kind: string, counts: RedactionCounts): string {
  counts[kind] = (counts[kind] ?? 0) + 1;
  return redactionMarker(kind);
}

function unusedKey(object: Record<string, unknown>, key: string): string {
  if (!Object.hasOwn(object, key)) return key;
  let n = 2;
  while (Object.hasOwn(object, `${key}#${n}`)) n++;
  return `${key}#${n}`;
}

/** Plain assignment of `__proto__` would set the prototype instead of a key. */
function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}
