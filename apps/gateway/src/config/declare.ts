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
