import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runNode } from './run-process.js';

// The built bin (`host-kit`), run as a process the way CI runs it.
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../test-fixtures/${name}/`, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'host-kit-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('host-kit CLI', () => {
  it('build writes the manifest; check passes on it and fails once it is stale or missing', async () => {
    const out = join(scratch, 'agent-tools.json');
    const build = await runNode([cli, 'build', '--project', 'tsconfig.json', '--out', out], fixture('basic'));
    expect(build).toMatchObject({ code: 0, stderr: '' });
    expect(build.stdout).toContain('host-kit: 2 tools in');
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(fixture('basic'), 'expected.json'), 'utf8'));

    expect((await runNode([cli, 'check', '--out', out], fixture('basic'))).code).toBe(0);

    writeFileSync(out, readFileSync(out, 'utf8').replace('Reads one order.', 'Reads an order.'));
    const stale = await runNode([cli, 'check', '--out', out], fixture('basic'));
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/agent-tools\.json is stale or missing; run `host-kit build`/);

    rmSync(out);
    expect((await runNode([cli, 'check', '--out', out], fixture('basic'))).code).toBe(1);
  }, 60_000);

  it('builds the README example under "strict": true (optional framework parameter c?: Context)', async () => {
    const out = join(scratch, 'readme.json');
    const build = await runNode([cli, 'build', '--out', out], fixture('readme-annotation-form'));
    expect(build).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(out, 'utf8')).toBe(
      readFileSync(join(fixture('readme-annotation-form'), 'expected.json'), 'utf8'),
    );
  }, 60_000);

  it('prints every diagnostic as file:line:col - error HKnnn: message, exits 1 and writes nothing', async () => {
    const out = join(scratch, 'broken.json');
    const result = await runNode([cli, 'build', '--out', out], fixture('build-fails'));
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').slice(0, 2)).toEqual([
      'broken.controller.ts:5:3 - error HK009: route segment ":id" of "read" has no parameter named "id"',
      'broken.controller.ts:6:3 - error HK001: @AgentTool needs a non-empty description ("read")',
    ]);
    expect(result.stderr).toContain('host-kit: 2 errors;');
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('rejects an unknown command with usage and exit code 2', async () => {
    const result = await runNode([cli, 'deploy'], fixture('basic'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('host-kit build [--project tsconfig.json]');
  });
});
