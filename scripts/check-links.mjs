#!/usr/bin/env node
// Checks the repository's Markdown: every relative link and #anchor in
// README.md, docs/**/*.md, the package and app READMEs and the pages each
// package ships beside its README (packages/*/docs/**/*.md, apps/*/docs/**/*.md)
// resolves, and every one of those docs pages is reachable from README.md by
// following links (directly or through docs/README.md and the package
// READMEs). docs/_incoming holds text waiting to be placed, so it is neither
// checked nor required to be reachable. No network: links with a scheme
// (https:, mailto:) are not followed.
//
//   node scripts/check-links.mjs [root]   exits 1 and lists each problem
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTRY = 'README.md';
const DOCS = 'docs';
const IGNORED_DOCS = 'docs/_incoming';

/** The files whose links are checked, as root-relative paths with `/`. */
export function markdownFiles(root) {
  const files = [];
  if (existsSync(join(root, ENTRY))) files.push(ENTRY);
  for (const { readme, pages } of packageFolders(root)) {
    if (existsSync(join(root, readme))) files.push(readme);
    files.push(...pages);
  }
  return [...files, ...docsPages(root)];
}

/**
 * Each package and app folder: its README and the Markdown pages under its own
 * docs/ (a reference page that ships in the package, linked from the README).
 */
function packageFolders(root) {
  const folders = [];
  for (const folder of ['packages', 'apps']) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      folders.push({ readme: `${folder}/${name}/README.md`, pages: pagesUnder(root, `${folder}/${name}/${DOCS}`) });
    }
  }
  return folders;
}

/** Every Markdown page under docs/, docs/_incoming excepted. */
export function docsPages(root) {
  return pagesUnder(root, DOCS).filter((path) => !isIgnored(path));
}

/** Every Markdown page under the root-relative folder `dir`, sorted. */
function pagesUnder(root, dir) {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { recursive: true })
    .map((entry) => `${dir}/${String(entry).split(sep).join('/')}`)
    .filter((path) => path.endsWith('.md'))
    .sort();
}

const isIgnored = (path) => path === IGNORED_DOCS || path.startsWith(`${IGNORED_DOCS}/`);

/**
 * The link targets of a Markdown text, outside fenced code blocks and inline
 * code spans: inline links and images `[text](target "title")` and reference
 * definitions `[id]: target`.
 */
export function linkTargets(text) {
  const targets = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/(`+)[^`]*?\1/g, '');
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+["'(][^)]*)?\)/g)) targets.push(match[1]);
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (definition) targets.push(definition[1]);
  }
  return targets;
}

/** The lines of a Markdown text that are not inside a fenced code block. */
function* proseLines(text) {
  let fence = null;
  for (const line of text.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (marker) {
      if (fence === null) fence = marker[1];
      else if (marker[1][0] === fence[0] && marker[1].length >= fence.length) fence = null;
      continue;
    }
    if (fence === null) yield line;
  }
}

/**
 * The anchors a Markdown text offers: a GitHub-style slug per heading
 * (duplicates numbered -1, -2, ...) and every `<a id>` / `<a name>`.
 */
export function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  for (const line of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s[^>]*(?:id|name)=["']([^"']+)["']/g)) anchors.add(match[1]);
  }
  return anchors;
}

/** GitHub's heading slug: the heading's text, lower-cased, punctuation dropped, spaces to hyphens. */
export function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/(\*\*|__|\*|~~)/g, '');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Checks the tree at `root`; returns one line per problem, empty when all is well. */
export function checkLinks(root) {
  const problems = [];
  const files = markdownFiles(root);
  const anchorCache = new Map();
  const anchorsIn = (path) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(join(root, path), 'utf8')));
    return anchorCache.get(path);
  };
  const linksFrom = new Map();

  for (const file of files) {
    const pages = new Set();
    for (const target of linkTargets(readFileSync(join(root, file), 'utf8'))) {
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const [rawPath, anchor = ''] = target.split('#', 2);
      const path = decodeURIComponent(rawPath);
      const resolved =
        path === ''
          ? file
          : relative(root, resolve(root, dirname(file), path))
              .split(sep)
              .join('/');
      if (resolved.startsWith('..') || !existsSync(join(root, resolved))) {
        problems.push(`${file}: link to ${target}: no such file ${resolved}`);
        continue;
      }
      const isPage = resolved.endsWith('.md') && statSync(join(root, resolved)).isFile();
      if (isPage) pages.add(resolved);
      if (anchor !== '' && isPage && !anchorsIn(resolved).has(decodeURIComponent(anchor))) {
        problems.push(`${file}: link to ${target}: ${resolved} has no heading or anchor #${anchor}`);
      }
    }
    linksFrom.set(file, pages);
  }

  const reached = new Set([ENTRY]);
  const queue = [ENTRY];
  while (queue.length > 0) {
    const page = queue.shift();
    let links = linksFrom.get(page);
    if (links === undefined && existsSync(join(root, page))) {
      // A page outside the checked set (a nested README): follow its links too.
      links = new Set(
        linkTargets(readFileSync(join(root, page), 'utf8'))
          .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && target.split('#')[0].endsWith('.md'))
          .map((target) =>
            relative(root, resolve(root, dirname(page), decodeURIComponent(target.split('#')[0])))
              .split(sep)
              .join('/'),
          ),
      );
    }
    for (const next of links ?? []) {
      if (!reached.has(next)) {
        reached.add(next);
        queue.push(next);
      }
    }
  }
  for (const page of docsPages(root)) {
    if (!reached.has(page)) problems.push(`${page}: not reachable from ${ENTRY} (link it from ${DOCS}/README.md)`);
  }
  for (const { readme, pages } of packageFolders(root)) {
    for (const page of pages) {
      if (!reached.has(page)) problems.push(`${page}: not reachable from ${ENTRY} (link it from ${readme})`);
    }
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const problems = checkLinks(root);
  for (const problem of problems) console.error(problem);
  const checked = markdownFiles(root).length;
  if (problems.length > 0) {
    console.error(`check-links: ${problems.length} problem(s) in ${checked} Markdown files`);
    process.exit(1);
  }
  console.log(
    `check-links: ${checked} Markdown files, every relative link and anchor resolves, every docs page reachable`,
  );
}
