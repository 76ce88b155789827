/**
 * Shortens a JSON value so that its serialization fits a character budget,
 * keeping it a prefix of the original in document order: arrays lose items
 * from the end, objects lose their last keys, the string at the cut keeps its
 * beginning. The result is a new tree, so it serializes to valid JSON by
 * construction; nothing is ever cut inside a JSON token or an escape.
 *
 * Work is bounded by the budget, not by the size of the value: the walk stops
 * as soon as the room is used up.
 */

/** One place where something was left out. `kept`/`total` count array items,
 * object keys, or string characters (UTF-16 code units) depending on `unit`. */
export type TruncationCut =
  | { path: string; unit: 'items' | 'keys' | 'chars'; kept: number; total: number }
  | { path: string; omitted: true };

export interface Pruned {
  /** undefined when not even an empty container fits. */
  value: unknown;
  /** Exact length of `JSON.stringify(value)`. */
  size: number;
}

/** Deeper than this the walk stops; a value nested so deep is cut like one that does not fit. */
export const MAX_PRUNE_DEPTH = 256;

/** A string is only shortened when at least this many characters of it can stay. */
const MIN_KEPT_CHARS = 1;

/**
 * The key lists of the objects walked so far. `capResponse` prunes the same
 * value a dozen times while it searches for the budget; an object's keys are
 * listed once, not on every run (200,000 keys cost 25 ms to list each time).
 */
export type KeyLists = WeakMap<object, string[]>;

export function pruneToFit(
  value: unknown,
  room: number,
  cuts: TruncationCut[],
  keyLists: KeyLists = new WeakMap(),
): Pruned | undefined {
  const pruned = pruneValue(value, room, '$', 0, { cuts, keyLists });
  if (pruned === undefined) cuts.push({ path: '$', omitted: true });
  return pruned;
}

/** What one walk writes to (the cuts) and reuses (the key lists). */
interface Walk {
  cuts: TruncationCut[];
  keyLists: KeyLists;
}

function pruneValue(value: unknown, room: number, path: string, depth: number, walk: Walk): Pruned | undefined {
  if (depth > MAX_PRUNE_DEPTH) return undefined;
  if (typeof value === 'string') return pruneString(value, room, path, walk.cuts);
  if (Array.isArray(value)) return pruneArray(value, room, path, depth, walk);
  if (value !== null && typeof value === 'object')
    return pruneObject(value as Record<string, unknown>, room, path, depth, walk);
  const text = JSON.stringify(value) ?? 'null';
  return text.length <= room ? { value: value ?? null, size: text.length } : undefined;
}

function pruneString(value: string, room: number, path: string, cuts: TruncationCut[]): Pruned | undefined {
  const whole = JSON.stringify(value).length;
  if (whole <= room) return { value, size: whole };
  // Two quotes around the kept prefix.
  let size = 2;
  let end = 0;
  // for..of walks code points, so a surrogate pair is never split.
  for (const char of value) {
    const next = size + escapedLength(char);
    if (next > room) break;
    size = next;
    end += char.length;
  }
  if (end < MIN_KEPT_CHARS) return undefined;
  cuts.push({ path, unit: 'chars', kept: end, total: value.length });
  return { value: value.slice(0, end), size };
}

function pruneArray(items: unknown[], room: number, path: string, depth: number, walk: Walk): Pruned | undefined {
  if (room < 2) return undefined;
  const { cuts } = walk;
  // The container's own cut is listed before any cut inside it.
  const cutAt = cuts.length;
  const kept: unknown[] = [];
  let size = 2;
  for (const [index, item] of items.entries()) {
    const separator = index === 0 ? 0 : 1;
    const cutsBefore = cuts.length;
    const pruned = pruneValue(item, room - size - separator, `${path}[${index}]`, depth + 1, walk);
    if (pruned === undefined) break;
    kept.push(pruned.value);
    size += separator + pruned.size;
    // A shortened item ends the prefix: a later item after it would not be one.
    if (cuts.length > cutsBefore) break;
  }
  if (kept.length === 0 && items.length > 0) return dropped(cuts, cutAt);
  if (kept.length < items.length)
    cuts.splice(cutAt, 0, { path, unit: 'items', kept: kept.length, total: items.length });
  return { value: kept, size };
}

function pruneObject(
  object: Record<string, unknown>,
  room: number,
  path: string,
  depth: number,
  walk: Walk,
): Pruned | undefined {
  if (room < 2) return undefined;
  const { cuts } = walk;
  const cutAt = cuts.length;
  const keys = keysOf(object, walk.keyLists);
  // A null prototype keeps a downstream key named `__proto__` an ordinary key.
  const kept: Record<string, unknown> = Object.create(null);
  let size = 2;
  let count = 0;
  for (const key of keys) {
    const keyCost = (count === 0 ? 0 : 1) + JSON.stringify(key).length + 1;
    const cutsBefore = cuts.length;
    const pruned = pruneValue(object[key], room - size - keyCost, childPath(path, key), depth + 1, walk);
    if (pruned === undefined) break;
    kept[key] = pruned.value;
    size += keyCost + pruned.size;
    count += 1;
    // As in arrays: nothing may follow a shortened value.
    if (cuts.length > cutsBefore) break;
  }
  if (count === 0 && keys.length > 0) return dropped(cuts, cutAt);
  if (count < keys.length) cuts.splice(cutAt, 0, { path, unit: 'keys', kept: count, total: keys.length });
  return { value: kept, size };
}

function keysOf(object: object, keyLists: KeyLists): string[] {
  let keys = keyLists.get(object);
  if (keys === undefined) keyLists.set(object, (keys = Object.keys(object)));
  return keys;
}

/**
 * An emptied container (`[]` for a list of 500 items) reads as "there was
 * nothing"; leaving it out makes its parent record the cut instead.
 */
function dropped(cuts: TruncationCut[], cutAt: number): undefined {
  cuts.length = cutAt;
  return undefined;
}

/** Length of one code point inside a JSON string literal, as JSON.stringify writes it. */
function escapedLength(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (char === '"' || char === '\\') return 2;
  if (code < 0x20) return '\b\f\n\r\t'.includes(char) ? 2 : 6;
  // Well-formed JSON.stringify writes a lone surrogate as \uXXXX.
  if (code >= 0xd800 && code <= 0xdfff) return 6;
  return char.length;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childPath(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
