import { z } from 'zod';
import type { Field } from './declare.js';

/**
 * The kinds of value most configuration keys hold, each a schema with the
 * type the reference page names. A fallback given here is the key's
 * default. A kind only one key has is written in its section file.
 */

/** Text trimmed; blank is unset. */
export const optionalText = {
  schema: z
    .string()
    .trim()
    .transform((value) => (value === '' ? undefined : value))
    .optional(),
  type: 'text',
} satisfies Field;

export function positiveInt(fallback: number) {
  return {
    schema: z.coerce.number().int('must be a whole number').positive('must be positive').default(fallback),
    type: 'whole number ≥ 1',
  } satisfies Field;
}

/** A positive number of seconds, fractions allowed. */
export function positiveSeconds(fallback: number) {
  return {
    schema: z.coerce.number().positive('must be positive').default(fallback),
    type: 'number > 0',
  } satisfies Field;
}

/** A number for a core option: the core checks its range, and applies its default when unset. */
export const optionNumber = {
  schema: z.coerce.number({ error: 'must be a number' }).optional(),
  type: 'number',
} satisfies Field;

/** Text for a core option, one of `values`: the core checks it, and applies its default when unset. */
export function optionChoice(values: readonly string[]) {
  return { schema: optionalText.schema, type: choices(values) } satisfies Field;
}

export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  fallback: T[number],
  message?: string,
) {
  const schema = message === undefined ? z.enum(values) : z.enum(values, { error: message });
  return { schema: schema.default(fallback as never), type: choices(values) } satisfies Field;
}

export const httpUrl = {
  schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  type: 'http(s) URL',
} satisfies Field;

/** Comma-separated, or a JSON array. */
export const commaList = {
  schema: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  type: 'list',
  list: true,
} satisfies Field;

export function booleanFlag(fallback: boolean) {
  return {
    schema: z
      .enum(['true', 'false', 'True', 'False', 'TRUE', 'FALSE', '1', '0'], { error: 'must be true or false' })
      .transform((value) => value.toLowerCase() === 'true' || value === '1')
      .default(fallback),
    type: 'boolean',
  } satisfies Field;
}

function choices(values: readonly string[]): string {
  return values.map((value) => `\`${value}\``).join(' or ');
}
