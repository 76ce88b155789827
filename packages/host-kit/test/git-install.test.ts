import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const peer = (name: string) =>
  JSON.parse(readFileSync(join(packageDir, 'node_modules', name, 'package.json'), 'utf8')).version as string;

const git = (args: string[], cwd: string) =>
  run(
    'git',
    ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args],
    { cwd, timeout: 60_000 },
  );

/**
 * The README's install from git before a release (issue 29): pnpm fetches the
 * repository, builds `packages/host-kit` with its `prepare` script (pnpm 10
 * runs a git dependency's build only when the app's pnpm-workspace.yaml
 * allows that exact source), and the app serves /gw/schema with it. The
 * repository is a local bare one holding this checkout's files (tracked and
 * not ignored, as they are now) in one commit: there is no network here, and
 * `git+file://` takes the same path through pnpm as `git+https://`.
 */
describe('install from git', () => {
  let scratch: string;
  let remote: string;
  let commit: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'host-kit-git-'));
    const tree = join(scratch, 'tree');
    mkdirSync(tree);
    const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: repoRoot,
      maxBuffer: 64 * 1024 * 1024,
    });
    writeFileSync(join(scratch, 'files'), stdout);
    await run(
      'sh',
      ['-c', `tar --null --ignore-failed-read -T "${join(scratch, 'files')}" -cf - | tar -xf - -C "${tree}"`],
      { cwd: repoRoot, timeout: 60_000 },
    );
    await git(['init', '-q'], tree);
    await git(['add', '-A'], tree);
    await git(['commit', '-qm', 'snapshot'], tree);
    commit = (await git(['rev-parse', 'HEAD'], tree)).stdout.trim();
    remote = join(scratch, 'tollgate.git');
    await git(['clone', '-q', '--bare', tree, remote], scratch);
  }, 90_000);
  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('installs with the README command, built on prepare, and serves /gw/schema', async () => {
    const app = join(scratch, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'app-from-git', version: '1.0.0', private: true, type: 'module' }),
    );
    // The README's two steps, with file:// for https://github.com/<org>/<repo>.
    const source = `git+file://${remote}#${commit}&path:packages/host-kit`;
    writeFileSync(join(app, 'pnpm-workspace.yaml'), `onlyBuiltDependencies:\n  - "@tollgate/host-kit@${source}"\n`);
    await run(
      'pnpm',
      ['add', source, `hono@${peer('hono')}`, `zod@${peer('zod')}`, '--prefer-offline', '--reporter=silent'],
      {
        cwd: app,
        timeout: 240_000,
        env: { ...process.env, CI: 'true' },
      },
    );
    writeFileSync(
      join(app, 'server.js'),
      `import { mapAgentToolSchema, withAgentTool } from '@tollgate/host-kit';
import { Hono } from 'hono';
import { z } from 'zod';
const app = new Hono();
app.get('/orders/:id', withAgentTool({ name: 'get_order', description: 'One order.', input: { route: z.object({ id: z.string() }) } }), (c) => c.json({}));
mapAgentToolSchema(app, { includeMappedEndpoints: true });
const response = await app.request('/gw/schema');
console.log(response.status, JSON.stringify(await response.json()));
`,
    );
    const { stdout } = await run(process.execPath, ['server.js'], { cwd: app, timeout: 30_000 });
    expect(stdout.slice(0, 3)).toBe('200');
    expect(JSON.parse(stdout.slice(4))[0]).toMatchObject({ name: 'get_order', httpMethod: 'GET' });
  }, 300_000);
});
