#!/usr/bin/env node
// API reports of the published packages: one @microsoft/api-extractor run per
// public entry point (packages/*/api-extractor*.json), over the tsup-built
// .d.ts in dist/. The reports are committed as packages/<pkg>/etc/*.api.md.
//
//   node scripts/api-report.mjs            check: exit 1 when a report is out of date
//   node scripts/api-report.mjs --update   rewrite the reports from dist/
//   ... [--verbose] [package-dir ...]      e.g. packages/host-kit
//
// Run it after `turbo run build` (the root `api:check` / `api:update` scripts do).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { builtFileLines } from './api-report-lines.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const update = args.includes('--update');
const verbose = args.includes('--verbose');
const only = args.filter((a) => !a.startsWith('--')).map((a) => path.resolve(a));
const rel = (p) => path.relative(root, p).split(path.sep).join('/');

const packagesDir = path.join(root, 'packages');
const configs = readdirSync(packagesDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => path.join(packagesDir, d.name))
  .filter((dir) => only.length === 0 || only.includes(dir))
  .flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => /^api-extractor(\.[\w-]+)?\.json$/.test(f))
      .sort()
      .map((f) => path.join(dir, f)),
  );

if (configs.length === 0) {
  console.error('api: no packages/*/api-extractor*.json found' + (only.length ? ` under ${args.join(' ')}` : ''));
  process.exit(1);
}

const stale = [];
let failed = false;

const prepared = configs.flatMap((configFile) => {
  try {
    return [ExtractorConfig.loadFileAndPrepare(configFile)];
  } catch (error) {
    // Most often the entry's .d.ts is not built yet.
    const text = String(error?.message ?? error).replace(/^Error parsing [^\n]*\n/, '');
    console.error(`api: ${rel(configFile)}: ${text}`);
    if (/path does not exist/.test(text)) console.error('  build first (`pnpm build`), then run this again.');
    failed = true;
    return [];
  }
});
// One TypeScript program per package serves all of its entry points.
const compilerStates = new Map();
const compilerStateFor = (config) => {
  let state = compilerStates.get(config.projectFolder);
  if (!state) {
    const entries = prepared
      .filter((c) => c.projectFolder === config.projectFolder)
      .map((c) => c.mainEntryPointFilePath);
    state = CompilerState.create(config, { additionalEntryPoints: entries });
    compilerStates.set(config.projectFolder, state);
  }
  return state;
};

for (const config of prepared) {
  const entry = config.mainEntryPointFilePath;
  const [reportConfig] = config.reportConfigs;
  const report = path.join(config.reportFolder, reportConfig.fileName);
  const label = `${config.packageJson?.name ?? rel(config.projectFolder)} (${rel(entry)})`;

  const diffs = [];
  const result = Extractor.invoke(config, {
    localBuild: update,
    compilerState: compilerStateFor(config),
    showVerboseMessages: verbose,
    printApiReportDiff: !update,
    messageCallback(message) {
      switch (message.messageId) {
        // Said once, below, in this script's own words.
        case 'console-api-report-not-copied':
        case 'console-api-report-copied':
        case 'console-api-report-created':
        case 'console-preamble':
        case 'console-compiler-version-notice':
          message.handled = true;
          break;
        case 'console-api-report-diff':
          diffs.push(message.text.replace(/^Changes to the API report:\s*/, ''));
          message.handled = true;
          break;
        default:
          if (!verbose && message.logLevel === 'info') message.handled = true;
      }
    },
  });

  // Warnings other than "the report changed" are printed by api-extractor and do
  // not fail the run; errors do.
  if (result.errorCount > 0) {
    console.error(`api: ${label}: ${result.errorCount} error(s), see above`);
    failed = true;
  }
  // A report that names a built chunk's line changes with any edit to the
  // package (api-report-lines.mjs): refused, in both modes, with the cure.
  const unplaced = builtFileLines(readFileSync(path.join(config.reportTempFolder, reportConfig.fileName), 'utf8'));
  if (unplaced.length > 0) {
    console.error(`api: ${label}: the report names built files' lines, which move with any change:`);
    for (const line of unplaced) console.error(`  ${line}`);
    console.error('  make that type public, or give the inline type around it a name (scripts/api-report-lines.mjs)');
    failed = true;
  }
  if (update) {
    console.log(`api: ${rel(report)} ${result.apiReportChanged ? 'updated' : 'unchanged'}`);
  } else if (result.apiReportChanged) {
    stale.push({ label, report, actual: path.join(config.reportTempFolder, reportConfig.fileName), diffs });
  } else {
    console.log(`api: ${rel(report)} up to date`);
  }
}

if (stale.length > 0) {
  for (const { label, report, actual, diffs } of stale) {
    if (existsSync(report)) {
      console.error(`\napi: the public API of ${label} differs from ${rel(report)}:`);
      if (diffs.length > 0) console.error(diffs.join('\n').trimEnd());
      console.error(`  full diff: git diff --no-index ${rel(report)} ${rel(actual)}`);
    } else {
      console.error(`\napi: ${label} has no report yet (${rel(report)} is missing);`);
      console.error(`  what it would hold: ${rel(actual)}`);
    }
  }
  console.error(
    '\napi: the public API changed. If that is deliberate, run `pnpm api:update` and commit' +
      ' packages/*/etc/*.api.md with the change (reviewers read the diff); otherwise undo it.',
  );
  failed = true;
}

process.exit(failed ? 1 : 0);
