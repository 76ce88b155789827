import type { ConfigProblem } from '@tollgate/gateway-core/errors';
import type { z } from 'zod';
import { lookup, section, type FlatConfig } from './sources.js';

/**
 * How a key's written value is read: the schema that parses it (undefined
 * when unset, so its `.default()` is the key's default) and the type the
 * reference page shows for it. The field builders in fields.ts make both
 * together, so the page's type cannot drift from the parser.
 */
export interface Field<S extends z.ZodType = z.ZodType> {
  schema: S;
  type: string;
  /** List keys may also come as JSON arrays (`Key:0`, `Key:1`, ...). */
  list?: boolean;
}

/**
 * One configuration key, declared once in its section file: the reader
 * parses it with `field`, and docs/reference/configuration.md's tables are
 * written from it (scripts/config-page.mjs).
 */
export interface KeyDeclaration<S extends z.ZodType = z.ZodType> {
  /** As users write it (contract 5): `Gw:Section:Key`; see `environmentName` for the variable. */
  name: string;
  /** `development`: whether NODE_ENV is development, for the keys that mode relaxes. */
  field: Field<S> | ((development: boolean) => Field<S>);
  /** One line: what it does, as the reference page says it. */
  description: string;
  /**
   * The default as the page shows it, where parsing an unset key does not
   * give it: a required key, a default another key or gateway-core decides.
   * A function reads it from where it lives (gateway-core's defaults).
   */
  defaultIs?: string | (() => unknown);
}

/** A section's keys by the name the reader uses for each. */
export type Declarations = Readonly<Record<string, KeyDeclaration>>;

/** The values a section's keys parse to; after a problem-free read every key is present. */
export type SectionValues<D extends Declarations> = {
  [K in keyof D]: D[K] extends KeyDeclaration<infer S> ? z.output<S> : never;
};

/** Declares a section's keys, keeping each one's own schema type for the reader. */
export function declareKeys<D extends Record<string, KeyDeclaration>>(keys: D): D {
  return keys;
}

/** The environment variable that sets `name`: each `:` becomes `__`. */
export function environmentName(name: string): string {
  return name.replaceAll(':', '__');
}

export function fieldOf(key: KeyDeclaration, development: boolean): Field {
  return typeof key.field === 'function' ? key.field(development) : key.field;
}

/**
 * Each key parsed on its own, so the core's checks still run on the keys
 * that parsed when others did not, and every problem is reported at once.
 * A key that did not parse is left out (and its problems added).
 */
export function readKeys<D extends Declarations>(
  keys: D,
  flat: FlatConfig,
  development: boolean,
  problems: ConfigProblem[],
): Partial<SectionValues<D>> {
  const values: Record<string, unknown> = {};
  for (const [id, key] of Object.entries(keys)) {
    const field = fieldOf(key, development);
    const raw =
      lookup(flat, key.name) ??
      (field.list ? Object.values(section(flat, key.name)).join(',') || undefined : undefined);
    const parsed = field.schema.safeParse(raw);
    if (parsed.success) values[id] = parsed.data;
    else for (const issue of parsed.error.issues) problems.push({ path: key.name, message: issue.message });
  }
  return values as Partial<SectionValues<D>>;
}

/**
 * A key with parts users choose (`Gw:Downstreams:<name>:BaseUrl`) is
 * declared like any other, its chosen parts written as placeholders, and read
 * by its section's parser through `matchKey` and `keyName`.
 */
const PLACEHOLDER = /^<[^>]+>$/;

export interface KeyMatch<D extends Declarations> {
  id: keyof D & string;
  /** What the placeholders stand for in the written key, in order, as written. */
  parts: string[];
}

/**
 * The declaration `written` (a whole key, `:`-separated) is an instance of:
 * its fixed segments match case-insensitively, as every key does, and a
 * placeholder matches one segment, an empty one too (the parser says what
 * is wrong with it). With `lastTakesRest`, a placeholder that
 * ends a name takes the rest of the key, `:`s included (a header name is
 * handed whole to the core's check). Undefined when none matches.
 */
export function matchKey<D extends Declarations>(
  keys: D,
  written: string,
  { lastTakesRest = false }: { lastTakesRest?: boolean } = {},
): KeyMatch<D> | undefined {
  const segments = written.split(':');
  for (const [id, key] of Object.entries(keys)) {
    const pattern = key.name.split(':');
    const rest = lastTakesRest && PLACEHOLDER.test(pattern.at(-1) ?? '');
    if (rest ? segments.length < pattern.length : segments.length !== pattern.length) continue;
    const parts: string[] = [];
    const matches = pattern.every((expected, i) => {
      if (!PLACEHOLDER.test(expected)) return expected.toLowerCase() === segments[i]?.toLowerCase();
      const part = rest && i === pattern.length - 1 ? segments.slice(i).join(':') : (segments[i] as string);
      parts.push(part);
      return true;
    });
    if (matches) return { id, parts };
  }
  return undefined;
}

/** A templated key's name with its placeholders filled in order (`keyName(key, 'orders')`). */
export function keyName(key: KeyDeclaration, ...parts: readonly (string | number)[]): string {
  let next = 0;
  return key.name
    .split(':')
    .map((segment) => (PLACEHOLDER.test(segment) && next < parts.length ? String(parts[next++]) : segment))
    .join(':');
}

/** The section a templated group's keys sit under: the fixed segments their names share before any placeholder. */
export function sectionOf(keys: Declarations): string {
  const fixed = Object.values(keys).map(({ name }) => {
    const segments = name.split(':');
    const end = segments.findIndex((segment) => PLACEHOLDER.test(segment));
    return end < 0 ? segments : segments.slice(0, end);
  });
  const [first = []] = fixed;
  let length = 0;
  while (length < first.length && fixed.every((segments) => segments[length] === first[length])) length++;
  return first.slice(0, length).join(':');
}
