import type { Readable } from 'node:stream';
import { MAX_PRUNE_DEPTH } from '../tokens/prune.js';
import { DownstreamCallError } from '../errors.js';
import { opensAtMost } from '../util/json-opens.js';

/**
 * Reads the body, refusing more than `limitBytes` so a runaway downstream
 * cannot exhaust the gateway's memory: the bytes are counted as they stream
 * in and the read stops at the first chunk past the limit. A `declaredLength`
 * (the Content-Length header) past the limit is refused before anything is
 * read; a body that turns out longer than it declared is still cut.
 */
export function readLimited(body: Readable, limitBytes: number, declaredLength?: string | string[]): Promise<Buffer> {
  const declared = Number(Array.isArray(declaredLength) ? declaredLength[0] : declaredLength);
  if (declared > limitBytes) {
    body.destroy();
    return Promise.reject(tooLarge(limitBytes));
  }
  // Plain 'data'/'end' events rather than `for await`: the async iterator costs an object and a few promises per call.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length <= limitBytes) return void chunks.push(chunk);
      stop();
      body.destroy();
      reject(tooLarge(limitBytes));
    };
    const onEnd = () => (stop(), resolve(Buffer.concat(chunks, length)));
    const onError = (error: Error) => (stop(), reject(error));
    // Closed before its end without an error of its own (destroyed): as `for await` says it.
    const onClose = () => onError(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    const stop = () => void body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

function tooLarge(limitBytes: number): DownstreamCallError {
  return new DownstreamCallError(`Downstream response exceeds ${limitBytes} bytes`, {
    reason: 'response-too-large',
    limitBytes,
  });
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
  // Most answers open far fewer brackets than the limit, which bounds their depth: no character-by-character walk then.
  if (!opensAtMost(text, MAX_PRUNE_DEPTH) && nestingExceeds(text, MAX_PRUNE_DEPTH)) {
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

/** Bracket depth outside string literals, without parsing: strings are skipped from quote to quote. */
function nestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; ) {
    const code = text.charCodeAt(index++);
    if (code === QUOTE) {
      index = afterString(text, index);
      if (index < 0) return false;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) depth--;
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The index after the quote that closes a string opened before
 * `from` (one not escaped by an odd run of backslashes), or -1.
 */
function afterString(text: string, from: number): number {
  for (let start = from; ; ) {
    const quote = text.indexOf('"', start);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    start = quote + 1;
  }
}
