#!/usr/bin/env node
// The error table of docs/reference/errors.md is written from gateway-core's
// error catalogue (the one place each error's codes live), between the
// markers below, so the page cannot drift from the code unnoticed:
//
//   node scripts/errors-page.mjs          exits 1 when the page is out of date
//   node scripts/errors-page.mjs --write  rewrites the table
//
// Reads the catalogue's TypeScript source (Node 24 strips the types; vitest
// transpiles it), so no build is needed.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withBlock, writeOrCheck } from './generated-block.mjs';

export const BEGIN =
  '<!-- errors:begin (written by scripts/errors-page.mjs from packages/gateway-core/src/error-catalogue.ts) -->';
export const END = '<!-- errors:end -->';
const MARKERS = { begin: BEGIN, end: END };
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PAGE = join(ROOT, 'docs/reference/errors.md');

const DELIVERY = {
  'tool-error': 'tool error: an `isError` result in HTTP 200',
  'in-band': 'JSON-RPC error in HTTP 200',
  http: 'HTTP status',
};

/** The Markdown table of every error kind, in the catalogue's order. */
export async function errorTable() {
  const { ERROR_CATALOGUE } = await import('../packages/gateway-core/src/error-catalogue.ts');
  const rows = Object.entries(ERROR_CATALOGUE).map(
    ([code, kind]) =>
      `| \`${code}\` | ${kind.title} | ${kind.httpStatus} | ${kind.jsonRpcCode} | ${DELIVERY[kind.delivery]} | \`${kind.outcome}\` |`,
  );
  return [
    '| Code | Title | HTTP status | JSON-RPC code | Delivered by default as | Audit outcome |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The page's text with its table replaced by `table`. */
export function withTable(page, table) {
  return withBlock(page, MARKERS, table);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeOrCheck(PAGE, MARKERS, await errorTable());
}
