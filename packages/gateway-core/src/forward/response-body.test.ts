import fc from 'fast-check';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DownstreamCallError } from '../errors.js';
import { MAX_PRUNE_DEPTH } from '../tokens/prune.js';
import { decodeBody, readLimited } from './response-body.js';

/** A body of `chunks` chunks of `size` bytes that counts how many were pulled from it. */
function countedBody(chunks: number, size: number) {
  const body = { pulled: 0, stream: undefined as unknown as Readable };
  body.stream = new Readable({
    read() {
      if (body.pulled === chunks) return void this.push(null);
      body.pulled++;
      this.push(Buffer.alloc(size, 'a'));
    },
  });
  return body;
}

async function refusal(read: Promise<unknown>): Promise<DownstreamCallError> {
  const error = await read.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(DownstreamCallError);
  return error as DownstreamCallError;
}

describe('readLimited', () => {
  it('returns a body within the limit whole', async () => {
    const body = countedBody(3, 1024);
    expect((await readLimited(body.stream, 3 * 1024, '3072')).length).toBe(3 * 1024);
  });

  it('cuts a streamed body at the first chunk past the limit and stops reading it', async () => {
    const body = countedBody(100, 1024);
    const error = await refusal(readLimited(body.stream, 3 * 1024));
    expect(error.data).toEqual({ reason: 'response-too-large', limitBytes: 3 * 1024 });
    expect(error.message).toBe('Downstream response exceeds 3072 bytes');
    // Stream buffering may pull a chunk or two ahead, never the rest.
    expect(body.pulled).toBeLessThan(10);
    expect(body.stream.destroyed).toBe(true);
  });

  it('refuses a declared Content-Length past the limit before reading a byte', async () => {
    const body = countedBody(100, 1024);
    const error = await refusal(readLimited(body.stream, 3 * 1024, String(50 * 1024)));
    expect(error.data).toEqual({ reason: 'response-too-large', limitBytes: 3 * 1024 });
    expect(body.pulled).toBe(0);
    expect(body.stream.destroyed).toBe(true);
  });

  it('still cuts a body that sends more than it declared, and ignores a length that is no number', async () => {
    await expect(refusal(readLimited(countedBody(10, 1024).stream, 3 * 1024, '1024'))).resolves.toBeInstanceOf(
      DownstreamCallError,
    );
    expect((await readLimited(countedBody(2, 10).stream, 100, 'many')).length).toBe(20);
  });
});

describe('decodeBody', () => {
  it('parses JSON, passes other text on, and refuses nesting deeper than the gateway serializes', () => {
    expect(decodeBody(Buffer.from('{"a":[1]}'), 'application/json')).toEqual({ a: [1] });
    expect(decodeBody(Buffer.from('plain'), 'text/plain')).toBe('plain');
    expect(decodeBody(Buffer.from(''), 'application/json')).toBeNull();
    expect(() => decodeBody(Buffer.from('['.repeat(300) + ']'.repeat(300)), 'application/json')).toThrow(
      DownstreamCallError,
    );
  });
});

describe('the nesting check', () => {
  /** The scan it replaced, character by character: the reference. */
  function reference(text: string, limit: number): boolean {
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
  const deepBeyond = (text: string) => {
    try {
      decodeBody(Buffer.from(text), 'application/json');
      return false;
    } catch (error) {
      return (error as DownstreamCallError).data?.reason === 'response-too-deep';
    }
  };

  it('agrees with a character-by-character scan on any text, brackets and escapes in strings included', () => {
    const piece = fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"', '\\\\', 'a', ',', ':', '1');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 600 }), fc.integer({ min: 0, max: 8 }), (pieces, extra) => {
        const text = pieces.join('');
        // Nest the text in `MAX_PRUNE_DEPTH - extra` arrays, so the verdict depends on what is inside.
        const wrapped = `${'['.repeat(MAX_PRUNE_DEPTH - extra)}${text}${']'.repeat(MAX_PRUNE_DEPTH - extra)}`;
        expect(deepBeyond(wrapped)).toBe(reference(wrapped, MAX_PRUNE_DEPTH));
      }),
      { numRuns: 1_000 },
    );
  });

  it('does not count brackets inside strings, escaped quotes and all', () => {
    const inString = `{"a":"${'[{\\"'.repeat(400)}"}`;
    expect(deepBeyond(inString)).toBe(false);
    expect(deepBeyond('['.repeat(MAX_PRUNE_DEPTH + 1))).toBe(true);
    expect(deepBeyond(`"\\\\"${'['.repeat(MAX_PRUNE_DEPTH + 1)}`)).toBe(true);
  });
});

describe('readLimited on a body that fails or stops', () => {
  it('rejects with the stream error, and when the stream is destroyed before its end', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('socket hang up'));
      },
    });
    await expect(readLimited(failing, 100)).rejects.toThrow('socket hang up');
    const stopped = new Readable({ read() {} });
    const reading = readLimited(stopped, 100);
    stopped.push(Buffer.from('part'));
    stopped.destroy();
    await expect(reading).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });
});
