#!/usr/bin/env node
// Checks that no product line is longer than 120 characters: every .ts/.tsx
// file under packages/*/src and apps/*/src except tests (*.test.ts(x)). The
// formatter (Biome, lineWidth 120) wraps code but not comments or long string
// literals, so this catches what it leaves; `pnpm lint` and `pnpm test` run it.
//
//   node scripts/line-length.mjs [root]   exits 1 and lists each long line
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAX_LINE = 120;
const SOURCE = /\.tsx?$/;
const TEST = /\.test\.tsx?$/;

/** The product source files, as root-relative paths with `/`. */
export function productFiles(root) {
  const files = [];
  for (const folder of ['packages', 'apps']) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const src = `${folder}/${name}/src`;
      if (existsSync(join(root, src))) files.push(...sourcesUnder(root, src));
    }
  }
  return files;
}

function sourcesUnder(root, dir) {
  const found = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...sourcesUnder(root, path));
    else if (SOURCE.test(entry.name) && !TEST.test(entry.name)) found.push(path);
  }
  return found.sort();
}

/** `path:line: N characters` for each line of `text` over `max` characters (counted in code points). */
export function longLinesIn(path, text, max = MAX_LINE) {
  const problems = [];
  text.split('\n').forEach((line, index) => {
    const length = [...line].length;
    if (length > max) problems.push(`${path}:${index + 1}: ${length} characters`);
  });
  return problems;
}

/** Every product line over the limit under `root`. */
export function longLines(root, max = MAX_LINE) {
  return productFiles(root).flatMap((path) => longLinesIn(path, readFileSync(join(root, path), 'utf8'), max));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const problems = longLines(root);
  for (const problem of problems) console.error(problem);
  const checked = productFiles(root).length;
  if (problems.length > 0) {
    console.error(`line-length: ${problems.length} line(s) over ${MAX_LINE} characters in ${checked} product files`);
    process.exit(1);
  }
  console.log(`line-length: ${checked} product files, no line over ${MAX_LINE} characters`);
}
