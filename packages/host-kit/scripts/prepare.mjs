// `prepare`: builds the kit when it is installed from git (pnpm runs `pnpm install`
// in this folder of the fetched repository, then this script, with INIT_CWD here).
// In this repository's own install (INIT_CWD the repository root) it does nothing:
// turbo builds the packages, and a first `pnpm install` stays quiet and quick.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const installingThisFolder = resolve(process.env.INIT_CWD ?? '') === process.cwd();
if (installingThisFolder && !existsSync('dist/index.js')) {
  const build = spawnSync('tsup', { stdio: 'inherit', shell: true });
  process.exitCode = build.status ?? 1;
}
