import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const coreDir = fileURLToPath(new URL('../../gateway-core', import.meta.url));
const version = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version as string;
/** The peers at the versions this repository tests with. */
const HONO = JSON.parse(readFileSync(join(packageDir, 'node_modules/hono/package.json'), 'utf8')).version as string;
const ZOD = JSON.parse(readFileSync(join(packageDir, 'node_modules/zod/package.json'), 'utf8')).version as string;

/** pnpm outside this workspace, from its store first: no network unless the store lacks a package (then the npm registry). */
function pnpm(args: string[], cwd: string) {
  return run(
    'pnpm',
    [...args, '--ignore-workspace', '--prefer-offline', '--config.confirmModulesPurge=false', '--reporter=silent'],
    { cwd, timeout: 120_000, env: { ...process.env, CI: 'true' } },
  );
}

/** The files a packed tarball holds. */
async function tarballFiles(tarball: string): Promise<string[]> {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((entry) => entry.replace(/^package\//, ''));
}

/** One tool served from the installed kit, its `/gw/schema` printed: the same text in either module system. */
const SERVER = (load: string) => `${load}
const app = new Hono();
app.post('/notes', withAgentTool({ name: 'add_note', description: 'Add a note.', allowWrite: true, input: { body: z.object({ text: z.string().nullable() }) } }), (c) => c.json({}, 201));
mapAgentToolSchema(app, { includeMappedEndpoints: true });
Promise.resolve(app.request('/gw/schema')).then(async (response) => console.log(response.status, JSON.stringify(await response.json())));
`;

/**
 * The packages as a user gets them (issue 29): `pnpm pack` tarballs hold the
 * built entries of both module systems, their types, README and licence
 * fields and nothing of the sources' tests; the host-kit tarball installs
 * into a fresh ESM project and a fresh CommonJS project (the README's
 * install-from-a-tarball command) and serves /gw/schema in each.
 */
describe('packed tarballs', () => {
  let scratch: string;
  let hostKit: string;
  let core: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'host-kit-pack-'));
    // The README's command, run from the package folder.
    await run('pnpm', ['pack', '--pack-destination', scratch], { cwd: packageDir, timeout: 60_000 });
    await run('pnpm', ['pack', '--pack-destination', scratch], { cwd: coreDir, timeout: 60_000 });
    hostKit = join(scratch, `tollgate-host-kit-${version(packageDir)}.tgz`);
    core = join(scratch, `tollgate-gateway-core-${version(coreDir)}.tgz`);
  }, 90_000);
  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('host-kit holds every entry in ESM and CommonJS with types, the CLI, the README and its reference page, and no tests', async () => {
    const files = await tarballFiles(hostKit);
    for (const entry of ['index', 'tsup', 'vite']) {
      for (const suffix of ['.js', '.cjs', '.d.ts', '.d.cts']) expect(files).toContain(`dist/${entry}${suffix}`);
    }
    expect(files).toEqual(
      expect.arrayContaining(['dist/cli.js', 'bin/host-kit.js', 'README.md', 'docs/reference.md', 'package.json']),
    );
    expect(files.filter((file) => /\.test\.|^src\/|^test/.test(file))).toEqual([]);
    const manifest = JSON.parse((await run('tar', ['-xzOf', hostKit, 'package/package.json'])).stdout);
    expect(JSON.stringify(manifest)).not.toContain('workspace:');
  });

  it('gateway-core holds its entries with types, README and reference page, and no tests', async () => {
    const files = await tarballFiles(core);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/testing/index.js',
        'README.md',
        'docs/reference.md',
        'package.json',
      ]),
    );
    expect(files.filter((file) => /\.test\.|^src\//.test(file))).toEqual([]);
  });

  for (const [kind, type, file, load] of [
    [
      'ESM',
      'module',
      'server.js',
      "import { mapAgentToolSchema, withAgentTool } from '@tollgate/host-kit';\nimport { Hono } from 'hono';\nimport { z } from 'zod';",
    ],
    [
      'CommonJS',
      'commonjs',
      'server.js',
      "const { mapAgentToolSchema, withAgentTool } = require('@tollgate/host-kit');\nconst { Hono } = require('hono');\nconst { z } = require('zod');",
    ],
  ] as const) {
    it(`installs into a fresh ${kind} project and serves /gw/schema`, async () => {
      const project = join(scratch, kind);
      mkdirSync(project);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: `fresh-${type}`, version: '1.0.0', private: true, type }),
      );
      await pnpm(['add', hostKit, `hono@${HONO}`, `zod@${ZOD}`], project);
      writeFileSync(join(project, file), SERVER(load));
      const { stdout } = await run(process.execPath, [file], { cwd: project, timeout: 30_000 });
      const [status, body] = [stdout.slice(0, 3), JSON.parse(stdout.slice(4))];
      expect(status).toBe('200');
      expect(body[0]).toMatchObject({
        name: 'add_note',
        httpMethod: 'POST',
        inputSchema: { properties: { text: { type: ['string', 'null'] } } },
      });
    }, 150_000);
  }
});
