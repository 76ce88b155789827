import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { runNode } from './run-process.js';

// The built plugin, as users import it; typed from its source.
const { agentTools } = (await import(
  fileURLToPath(new URL('../dist/tsup.js', import.meta.url))
)) as typeof import('../src/tsup-plugin/index.js');
const fixture = (name: string) => fileURLToPath(new URL(`../test-fixtures/${name}/`, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'host-kit-plugin-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('@tollgate/host-kit/tsup', () => {
  it('fails a real tsup build on a fixture with a bad annotation, naming code and place', async () => {
    const tsupPackage = createRequire(import.meta.url).resolve('tsup/package.json');
    const tsupBin = join(dirname(tsupPackage), 'dist', 'cli-default.js');
    const result = await runNode([tsupBin], fixture('build-fails'));
    const output = result.stdout + result.stderr;
    expect(result.code).not.toBe(0);
    expect(output).toContain('HK001: @AgentTool needs a non-empty description ("read")');
    expect(output).toContain('HK009: route segment ":id" of "read" has no parameter named "id"');
    expect(output).toContain('broken.controller.ts:6:');
  }, 90_000);

  it('writes the manifest at build start when the project is clean', async () => {
    const out = join(scratch, 'agent-tools.json');
    await build({
      entryPoints: [join(fixture('basic'), 'orders.controller.ts')],
      write: false,
      logLevel: 'silent',
      plugins: [agentTools({ project: join(fixture('basic'), 'tsconfig.json'), out })],
    });
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(fixture('basic'), 'expected.json'), 'utf8'));
  }, 60_000);
});
