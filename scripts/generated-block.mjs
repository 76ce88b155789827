// A generated block of a Markdown page: the text between a begin and an end
// marker (HTML comments) is written by a script from the code it describes,
// the prose around it by hand. Shared by config-page.mjs and errors-page.mjs.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `page` with the text between `begin` and `end` replaced by `content` (on lines of its own). */
export function withBlock(page, { begin, end }, content) {
  const start = page.indexOf(begin);
  const stop = start < 0 ? -1 : page.indexOf(end, start + begin.length);
  if (stop < 0) throw new Error(`the page lacks the markers ${begin} … ${end}`);
  return `${page.slice(0, start + begin.length)}\n${content}\n${page.slice(stop)}`;
}

/**
 * The command both scripts are: with `--write` in `argv`, rewrites the block
 * of the page at `path`; without, exits 1 when the page differs from what
 * would be written (CI runs it so).
 */
export function writeOrCheck(path, markers, content, argv = process.argv) {
  const page = readFileSync(path, 'utf8');
  const updated = withBlock(page, markers, content);
  if (argv.includes('--write')) writeFileSync(path, updated);
  else if (updated !== page) {
    const [page, script] = [path, argv[1] ?? ''].map((file) => relative(ROOT, file));
    console.error(`${page} is out of date: run node ${script} --write`);
    process.exitCode = 1;
  }
}
