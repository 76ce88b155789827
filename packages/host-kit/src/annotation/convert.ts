import type { ScalarKind, ValueKind } from '../manifest.js';

/** A converted value, or the reason it does not convert (phrased to follow "must be"). */
export type Converted = { ok: true; value: unknown } | { ok: false; expected: string };

const INTEGER = /^[+-]?\d+$/;

/** A route, query or header string to the parameter's declared type. */
export function convertText(text: string, kind: ScalarKind): Converted {
  switch (kind) {
    case 'number': {
      const value = Number(text);
      return text.trim() !== '' && Number.isFinite(value) ? { ok: true, value } : { ok: false, expected: 'a number' };
    }
    case 'integer': {
      const value = Number(text);
      return INTEGER.test(text) && Number.isSafeInteger(value)
        ? { ok: true, value }
        : { ok: false, expected: 'an integer' };
    }
    case 'bigint':
      return INTEGER.test(text) ? { ok: true, value: BigInt(text) } : { ok: false, expected: 'an integer' };
    case 'boolean': {
      const lowered = text.toLowerCase();
      if (lowered === 'true' || lowered === 'false') return { ok: true, value: lowered === 'true' };
      return { ok: false, expected: 'true or false' };
    }
    case 'date':
      return toDate(text);
    case 'string':
    case 'json':
      return { ok: true, value: text };
  }
}

/** A property of a parsed JSON body to its declared kind; only `date` and `bigint` change representation. */
export function convertJson(value: unknown, kind: ValueKind): Converted {
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? { ok: true, value } : { ok: false, expected: 'a string' };
    case 'number':
      return typeof value === 'number' ? { ok: true, value } : { ok: false, expected: 'a number' };
    case 'integer':
      return Number.isSafeInteger(value) ? { ok: true, value } : { ok: false, expected: 'an integer' };
    case 'bigint':
      if (Number.isSafeInteger(value)) return { ok: true, value: BigInt(value as number) };
      return typeof value === 'string' ? convertText(value, 'bigint') : { ok: false, expected: 'an integer' };
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : { ok: false, expected: 'true or false' };
    case 'date':
      return typeof value === 'string' ? toDate(value) : { ok: false, expected: 'a date-time string' };
    case 'array':
      return Array.isArray(value) ? { ok: true, value } : { ok: false, expected: 'an array' };
    case 'object':
      return isJsonObject(value) ? { ok: true, value } : { ok: false, expected: 'an object' };
    case 'json':
      return { ok: true, value };
  }
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toDate(text: string): Converted {
  const value = new Date(text);
  return text.trim() !== '' && !Number.isNaN(value.getTime())
    ? { ok: true, value }
    : { ok: false, expected: 'a date-time string' };
}
