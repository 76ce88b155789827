#!/usr/bin/env node
// The key tables of docs/reference/configuration.md are written from the
// gateway's key declarations (apps/gateway/src/config/*-section.ts, gathered
// in keys.ts: the one place each key's name, type, default and description
// live), between the markers below, so the page cannot drift from the
// reader unnoticed. The prose around the markers is written by hand.
//
//   node scripts/config-page.mjs          exits 1 when the page is out of date
//   node scripts/config-page.mjs --write  rewrites the tables
//
// The declarations are TypeScript importing gateway-core's build: vitest
// transpiles them in the test; this command loads them through Vite's module
// runner. Build first (pnpm build).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withBlock, writeOrCheck } from './generated-block.mjs';

export const BEGIN = '<!-- config:begin (written by scripts/config-page.mjs from apps/gateway/src/config/keys.ts) -->';
export const END = '<!-- config:end -->';
const MARKERS = { begin: BEGIN, end: END };
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PAGE = join(ROOT, 'docs/reference/configuration.md');
export const KEYS_MODULE = join(ROOT, 'apps/gateway/src/config/keys.ts');
const MIB = 1024 * 1024;

/** `value` as the Default column shows it. */
function shownValue(value) {
  if (value === undefined) return '—';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((item) => `\`${item}\``).join(', ');
  const shown = `\`${value}\``;
  return typeof value === 'number' && value >= MIB && value % MIB === 0 ? `${shown} (${value / MIB} MiB)` : shown;
}

/** A declaration's default: written out, read from gateway-core, or what its schema gives an unset key. */
function shownDefault(key) {
  if (typeof key.defaultIs === 'string') return key.defaultIs;
  if (typeof key.defaultIs === 'function') return `${shownValue(key.defaultIs())} (gateway-core's default)`;
  const field = typeof key.field === 'function' ? key.field(false) : key.field;
  const parsed = field.schema.safeParse(undefined);
  return parsed.success ? shownValue(parsed.data) : '—';
}

function cell(text) {
  return text.replaceAll('|', '\\|');
}

function row(key) {
  const field = typeof key.field === 'function' ? key.field(false) : key.field;
  const environment = key.name.replaceAll(':', '__');
  return `| \`${key.name}\` | \`${environment}\` | ${cell(field.type)} | ${cell(shownDefault(key))} | ${cell(key.description)} |`;
}

/** The Markdown of every page section: a heading and the table of its keys, in declaration order. */
export async function configTables(load = (path) => import(path)) {
  const { PAGE_SECTIONS } = await load(KEYS_MODULE);
  return PAGE_SECTIONS.map(({ title, groups }) => {
    const rows = groups.flatMap((keys) => Object.values(keys)).map(row);
    return [
      `## ${title}`,
      '',
      '| Key | Environment variable | Type | Default | Meaning |',
      '|---|---|---|---|---|',
      ...rows,
    ].join('\n');
  }).join('\n\n');
}

/** The page's text with its tables replaced by `tables`. */
export function withTables(page, tables) {
  return withBlock(page, MARKERS, tables);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { runnerImport } = await import('vite');
  const tables = await configTables(
    async (path) => (await runnerImport(path, { configFile: false, logLevel: 'error' })).module,
  );
  writeOrCheck(PAGE, MARKERS, tables);
}
