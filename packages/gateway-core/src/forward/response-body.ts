import type { Readable } from 'node:stream';
import { MAX_PRUNE_DEPTH } from '../tokens/prune.js';
import { DownstreamCallError } from '../errors.js';

/**
 * Reads the body, refusing more than `limitBytes` so a runaway downstream
 * cannot exhaust the gateway's memory: the bytes are counted as they stream
 * in and the read stops at the first chunk past the limit. A `declaredLength`
 * (the Content-Length header) past the limit is refused before anything is
 * read; a body that turns out longer than it declared is still cut.
 */
export async function readLimited(body: Readable, limitBytes: number, declaredLength?: string | string[]): Promise<Buffer> {
  const declared = Number(Array.isArray(declaredLength) ? declaredLength[0] : declaredLength);
  if (declared > limitBytes) {
    body.destroy();
    throw tooLarge(limitBytes);
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    length += (chunk as Buffer).length;
    if (length > limitBytes) {
      body.destroy();
      throw tooLarge(limitBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, length);
}

function tooLarge(limitBytes: number): DownstreamCallError {
  return new DownstreamCallError(`Downstream response exceeds ${limitBytes} bytes`, { reason: 'response-too-large', limitBytes });
}

/** An error answer is read only this far: enough for any problem description, never a large body. */
export const MAX_ERROR_ANSWER_BYTES = 16 * 1024;

/**
 * The body of an error answer, decoded like any answer, or undefined when
 * there is none, it is longer than `MAX_ERROR_ANSWER_BYTES` (the rest is not
 * read), or it cannot be read.
 */
export async function readErrorAnswer(body: Readable, contentType: string | string[] | undefined): Promise<unknown> {
  try {
    const raw = await readLimited(body, MAX_ERROR_ANSWER_BYTES);
    const decoded = decodeBody(raw, Array.isArray(contentType) ? contentType[0] : contentType);
    return decoded ?? undefined;
  } catch {
    body.destroy();
    return undefined;
  }
}

/**
 * JSON bodies (any `json` media type) are parsed; anything else, or JSON that
 * does not parse, is passed on as text; an empty body is null. Deeper nesting
 * than the gateway can serialize again (JSON.stringify overflows the stack
 * long before JSON.parse does) is refused instead of crashing later.
 */
export function decodeBody(raw: Buffer, contentType: string | undefined): unknown {
  const text = raw.toString('utf8');
  if (text.length === 0) return null;
  if (!/\bjson\b/i.test(contentType ?? '')) return text;
  if (nestingExceeds(text, MAX_PRUNE_DEPTH)) {
    throw new DownstreamCallError(`Downstream JSON nests deeper than ${MAX_PRUNE_DEPTH} levels`, {
      reason: 'response-too-deep',
      limitDepth: MAX_PRUNE_DEPTH,
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Bracket depth outside string literals, without parsing. */
function nestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') {
      if (++depth > limit) return true;
    } else if (char === ']' || char === '}') depth--;
  }
  return false;
}
