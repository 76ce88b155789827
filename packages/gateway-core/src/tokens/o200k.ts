import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { GptEncoding } from 'gpt-tokenizer/GptEncoding';

const require = createRequire(import.meta.url);
const decoder = new TextDecoder();

/**
 * gpt-tokenizer's o200k_base encoder, built from the `.tiktoken` rank file
 * the package ships rather than from its `encoding/o200k_base` module.
 *
 * Same tables, same encoder: the module's ranks are a 2.4 MB JavaScript
 * array literal, and compiling it leaves ~16 MB of the parser's memory in the
 * process's malloc heap for good (plus ~5 MB of V8 heap); reading the rank
 * file leaves neither. Measured in a bare Node process: RSS after loading
 * 91 MB instead of 112, in about the same time (0.2–0.3 s). The test beside
 * this module checks that the ranks equal the package's own, entry for entry.
 */
export function loadO200k(): GptEncoding {
  const { GptEncoding } = require('gpt-tokenizer/GptEncoding') as typeof import('gpt-tokenizer/GptEncoding');
  return GptEncoding.getEncodingApi('o200k_base', o200kRanks);
}

/**
 * Each rank's token, as gpt-tokenizer's own rank tables hold it: the string
 * when its bytes decode to text that encodes back to the same bytes, else
 * the bytes (invalid UTF-8, and a leading byte-order mark, which decoding
 * drops). One `<base64 bytes> <rank>` per line of the file.
 */
export function o200kRanks(): (string | number[])[] {
  const file = readFileSync(require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'), 'latin1');
  const ranks: (string | number[])[] = [];
  let start = 0;
  while (start < file.length) {
    const space = file.indexOf(' ', start);
    let end = file.indexOf('\n', space);
    if (end === -1) end = file.length;
    const bytes = Buffer.from(file.slice(start, space), 'base64');
    const text = decoder.decode(bytes);
    ranks[Number(file.slice(space + 1, end))] = Buffer.from(text, 'utf8').equals(bytes) ? text : Array.from(bytes);
    start = end + 1;
  }
  return ranks;
}
