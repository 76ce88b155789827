import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeProject, formatDiagnostic, serializeManifest } from './index.js';

/**
 * Golden tests: every directory of test-fixtures/ is a small project with
 * either `expected.json` (the manifest) or `expected.txt` (the diagnostics,
 * as the CLI prints them). `UPDATE_GOLDEN=1` rewrites them; review the diff.
 * A new fixture starts with an empty expected file of the kind it should produce.
 */
const fixturesDir = fileURLToPath(new URL('../../test-fixtures/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

const fixtures = readdirSync(fixturesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(fixturesDir, entry.name))
  .filter((dir) => existsSync(join(dir, 'expected.json')) || existsSync(join(dir, 'expected.txt')));

describe.each(fixtures.map((dir) => [relative(fixturesDir, dir), dir]))('fixture %s', (_name, dir) => {
  it('produces the expected manifest or diagnostics', () => {
    const { manifest, diagnostics } = analyzeProject({ tsconfig: join(dir, 'tsconfig.json') });
    const printed = diagnostics.map((d) => formatDiagnostic(d, (file) => relative(dir, file))).join('\n');
    const manifestFile = join(dir, 'expected.json');
    const diagnosticsFile = join(dir, 'expected.txt');
    if (update && existsSync(diagnosticsFile)) writeFileSync(diagnosticsFile, `${printed}\n`);
    if (update && existsSync(manifestFile)) writeFileSync(manifestFile, serializeManifest(manifest));
    if (existsSync(diagnosticsFile)) {
      expect(`${printed}\n`).toBe(readFileSync(diagnosticsFile, 'utf8'));
    } else {
      expect(printed).toBe('');
      expect(manifest).toEqual(JSON.parse(readFileSync(manifestFile, 'utf8')));
    }
  }, 30_000);
});

describe('the reference page', () => {
  it('shows the annotation form exactly as the readme-annotation-form fixture (built there under "strict": true)', () => {
    // The example moved with the annotation form from README.md to docs/reference.md.
    const readme = readFileSync(new URL('../../docs/reference.md', import.meta.url), 'utf8');
    const start = readme.indexOf('// src/controllers/orders.controller.ts');
    const example = readme.slice(start, readme.indexOf('```', start));
    const fixture = readFileSync(
      join(fixturesDir, 'readme-annotation-form', 'controllers', 'orders.controller.ts'),
      'utf8',
    );
    expect(start).toBeGreaterThan(0);
    expect(fixture.slice(fixture.indexOf('\n') + 1)).toBe(example);
  });
});
