import type { Context } from 'hono';
import type { BodyField, ParameterBinding } from '../manifest.js';
import { convertJson, convertText, isJsonObject, type Converted } from './convert.js';

/** A request value the method cannot be called with; answered with 400. */
export class BadRequestInput extends Error {
  override readonly name = 'BadRequestInput';
}

/**
 * Fills a controller method's arguments from the request, in parameter
 * order, exactly as the manifest's binding plan says. Throws
 * `BadRequestInput` for a missing or unconvertible value.
 */
export async function bindArguments(
  c: Context,
  parameters: readonly ParameterBinding[],
  services: Readonly<Record<string, unknown>>,
): Promise<unknown[]> {
  const body = parameters.some((p) => p.kind === 'body' || p.kind === 'body-field') ? await readJsonBody(c) : undefined;
  return parameters.map((parameter) => bindOne(c, parameter, body, services));
}

function bindOne(
  c: Context,
  parameter: ParameterBinding,
  body: unknown,
  services: Readonly<Record<string, unknown>>,
): unknown {
  switch (parameter.kind) {
    case 'route':
      return textValue(c.req.param(parameter.name), parameter.scalar, true, `route parameter "${parameter.name}"`);
    case 'query':
      if (parameter.list) {
        return (c.req.queries(parameter.name) ?? []).map((text) =>
          textValue(text, parameter.scalar, true, `query parameter "${parameter.name}"`),
        );
      }
      return textValue(
        c.req.query(parameter.name),
        parameter.scalar,
        !parameter.optional,
        `query parameter "${parameter.name}"`,
      );
    case 'header':
      return textValue(
        c.req.header(parameter.header),
        parameter.scalar,
        !parameter.optional,
        `header "${parameter.header}"`,
      );
    case 'body':
      return objectBody(body, parameter.fields, parameter.optional);
    case 'body-field': {
      const value = isJsonObject(body) ? body[parameter.name] : undefined;
      return jsonValue(value, parameter.value, !parameter.optional, `body property "${parameter.name}"`);
    }
    case 'service':
      return services[parameter.token];
    case 'context':
      return c;
    case 'request':
      return c.req;
    case 'raw-request':
      return c.req.raw;
    case 'response':
      return c.res;
    case 'signal':
      return c.req.raw.signal;
    case 'body-stream':
      return c.req.raw.body;
  }
}

function textValue(
  text: string | undefined,
  kind: Parameters<typeof convertText>[1],
  required: boolean,
  what: string,
): unknown {
  if (text === undefined) {
    if (required) throw new BadRequestInput(`${what} is required`);
    return undefined;
  }
  return unwrap(convertText(text, kind), what, text);
}

function jsonValue(value: unknown, kind: Parameters<typeof convertJson>[1], required: boolean, what: string): unknown {
  if (value === undefined || value === null) {
    if (required) throw new BadRequestInput(`${what} is required`);
    return value;
  }
  return unwrap(convertJson(value, kind), what, value);
}

function unwrap(converted: Converted, what: string, received: unknown): unknown {
  if (converted.ok) return converted.value;
  throw new BadRequestInput(`${what} must be ${converted.expected}, got ${JSON.stringify(received)}`);
}

/** The whole body object: required properties present, each of its declared kind. Unknown properties pass through. */
function objectBody(body: unknown, fields: readonly BodyField[], optional: boolean): unknown {
  if (body === undefined && optional) return undefined;
  if (!isJsonObject(body)) throw new BadRequestInput('request body must be a JSON object');
  const bound: Record<string, unknown> = { ...body };
  for (const field of fields) {
    // A nullable body parameter makes all its properties optional (contract 4.6 rule 4).
    const value = jsonValue(
      body[field.name],
      field.kind,
      !optional && !field.optional,
      `body property "${field.name}"`,
    );
    if (value !== undefined) bound[field.name] = value;
  }
  return bound;
}

/** The parsed JSON body; undefined when the request has none. */
async function readJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestInput('request body is not valid JSON');
  }
}
