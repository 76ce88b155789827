// The import-graph checks behind the layers tests of gateway-core and of the
// gateway app (packages/gateway-core/src/layers.test.ts,
// apps/gateway/src/layers.test.ts): read a source tree's relative imports,
// find those pointing up a layer order, find cycles. Each test keeps its own
// rules (its layers, how a path maps to one); this module only reads and
// judges. It lives with the repository's other checks, not in a package, so
// no product depends on it; the tests import it by relative path, with its
// types in layers.d.mts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const SOURCE = /\.tsx?$/;
const TEST = /\.test\.tsx?$/;
const IMPORT = /^(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/gm;

/** The source files under `src` (.ts and .tsx, tests aside), as `src`-relative paths with `/`. */
export function sourceFiles(src) {
  return filesUnder(src)
    .map((file) => posix(relative(src, file)))
    .sort();
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return SOURCE.test(entry.name) && !TEST.test(entry.name) ? [path] : [];
  });
}

/**
 * Every relative import (and re-export) of the sources under `src`: the file,
 * the file it names (`./x.js` read as the `./x.ts` or `./x.tsx` beside it),
 * both `src`-relative, and the layer of each by `layerOf`.
 */
export function importGraph(src, layerOf) {
  return sourceFiles(src).flatMap((file) =>
    [...readFileSync(join(src, file), 'utf8').matchAll(IMPORT)].map((match) => {
      const target = posix(relative(src, sourceOf(resolve(src, dirname(file), match[1]))));
      return { from: layerOf(file), to: layerOf(target), file, target };
    }),
  );
}

/** The file an import names: `./x.js` is `./x.ts` (or `.tsx`) in the sources. */
function sourceOf(target) {
  const stem = target.replace(/\.js$/, '');
  return [`${stem}.ts`, `${stem}.tsx`].find((candidate) => existsSync(candidate)) ?? target;
}

/** `file -> target` for each import whose target's layer comes later in `layers` (bottom first) than its file's. */
export function upwardImports(imports, layers) {
  return imports
    .filter(({ from, to }) => layers.indexOf(to) > layers.indexOf(from))
    .map(({ file, target }) => `${file} -> ${target}`);
}

/** The groups of nodes that reach each other (Tarjan's strongly connected components), those of more than one node. */
export function cycles(edges) {
  const next = new Map();
  for (const [from, to] of edges) {
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  const index = new Map();
  const low = new Map();
  const stack = [];
  const found = [];
  const visit = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    for (const to of next.get(node)) {
      if (!index.has(to)) visit(to);
      if (stack.includes(to)) low.set(node, Math.min(low.get(node), low.get(to)));
    }
    if (low.get(node) !== index.get(node)) return;
    const group = stack.splice(stack.indexOf(node));
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The cycles among the groups `groupOf` puts files in (imports within one group left out). */
export function groupCycles(imports, groupOf) {
  return cycles(
    imports.map(({ file, target }) => [groupOf(file), groupOf(target)]).filter(([from, to]) => from !== to),
  );
}

/** The cycles among the files themselves. */
export function moduleCycles(imports) {
  return cycles(imports.map(({ file, target }) => [file, target]));
}

function posix(path) {
  return path.split(sep).join('/');
}
