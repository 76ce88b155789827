import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisServer, type RedisServer } from '@tollgate/gateway-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interpolate, readCompose } from './support/compose-file.js';
import {
  all,
  copiesFrom,
  environment,
  execForm,
  healthcheckCommand,
  last,
  readDockerfile,
  stageNamed,
  type Stage,
} from './support/dockerfile.js';
import { GatewayClient } from './support/gateway-client.js';
import { connectSdkClient, createAgentWithToken, resultJson } from './support/mcp.js';
import { eventually, freePort } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

/**
 * The images without Docker: runs the Dockerfile's own `pnpm deploy` lines,
 * assembles each runtime stage's /app from its `COPY --from=build` lines, and
 * starts the stage's CMD there, wired the way docker-compose.yml wires them
 * (service names become loopback ports). Not covered: the base image, the
 * build stage's install inside Linux containers, and Docker itself.
 */
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const stages = readDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8'));
const compose = readCompose(join(repo, 'docker-compose.yml'));
const pnpm = `pnpm@${JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).packageManager.split('@')[1]}`;
const withRedis = redisServerAvailable('the compose topology on a real Redis (runs on the in-memory store instead)');

let work: string;
const apps = new Map<string, string>();
const children: ChildProcess[] = [];
let redis: RedisServer | undefined;

/** Runs the build stage's `pnpm … deploy … /out/<name>` into the work folder, then the stage's COPY lines. */
function assembleImage(target: string): string {
  const stage = stageNamed(stages, target);
  const copies = copiesFrom(stage, 'build');
  const out = /^\/out\/[^/]+/.exec(copies[0]!.source)![0];
  const deploy = all(stageNamed(stages, 'build'), 'RUN').find(
    (run) => run.startsWith('pnpm ') && run.endsWith(` ${out}`),
  );
  if (!deploy) throw new Error(`no RUN pnpm … deploy line writes ${out}`);
  const args = deploy
    .split(/\s+/)
    .slice(1)
    .map((word) => (word === out ? join(work, out) : word));
  const run = spawnSync('npx', ['-y', pnpm, ...args], { cwd: repo, encoding: 'utf8', timeout: 180_000 });
  if (run.status !== 0) throw new Error(`${deploy} failed:\n${run.stdout}\n${run.stderr}`);

  const app = join(work, 'images', target, last(stage, 'WORKDIR')!);
  for (const { source, target: destination } of copies) {
    cpSync(join(work, source), join(app, destination), { recursive: true, verbatimSymlinks: true });
  }
  return app;
}

interface Container {
  child: ChildProcess;
  output: () => string;
}

/** The stage's CMD in its /app, with the image's ENV plus `env`; `node` is the workspace's Node 24. */
function startImage(stage: Stage, app: string, env: Record<string, string>): Container {
  const [binary, ...args] = execForm(last(stage, 'CMD')!);
  expect(binary).toBe('node');
  const child = spawn(process.execPath, args, {
    cwd: app,
    env: { PATH: process.env.PATH ?? '', ...environment(stage), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  children.push(child);
  return { child, output: () => output };
}

/** A healthcheck command as Docker would run it inside the container (exit 0 = healthy). */
function probe(command: string[], env: Record<string, string>): number | null {
  const [binary, ...args] = command[0] === 'CMD' ? command.slice(1) : command;
  expect(binary).toBe('node');
  return spawnSync(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 5_000 }).status;
}

/** Waits for the healthcheck to pass, as Docker retries it; a container that exits fails at once, with its output. */
async function healthy(container: Container, command: string[], env: Record<string, string>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (probe(command, env) !== 0) {
    if (container.child.exitCode !== null)
      throw new Error(`exited with ${container.child.exitCode}:\n${container.output()}`);
    if (Date.now() > deadline)
      throw new Error(`still unhealthy after 30 s: ${command.join(' ')}\n${container.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tollgate-image-'));
  for (const target of ['gateway', 'sample-downstream']) apps.set(target, assembleImage(target));
  if (withRedis) redis = await startRedisServer();
}, 300_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await redis?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('runtime images assembled from the Dockerfile', () => {
  it('hold production dependencies only', () => {
    const installed = readdirSync(join(apps.get('gateway')!, 'node_modules/.pnpm'));
    expect(installed.some((name) => name.startsWith('@tollgate+gateway-core'))).toBe(true);
    // yaml is not among them: gateway-core reads OpenAPI documents written in YAML (issue 27).
    for (const devOnly of ['vitest@', 'typescript@', 'tsup@', 'turbo@', 'esbuild@']) {
      expect(
        installed.filter((name) => name.startsWith(devOnly)),
        devOnly,
      ).toEqual([]);
    }
  });

  it('start with their CMD, pass their HEALTHCHECKs and serve a tool call as docker-compose wires them', async () => {
    const downstreamStage = stageNamed(stages, 'sample-downstream');
    const gatewayStage = stageNamed(stages, 'gateway');
    const downstreamPort = String(await freePort());
    const gatewayPort = String(await freePort());
    /** docker-compose's service addresses, as loopback ports here. */
    const onLoopback = (value: string) =>
      value
        .replace('http://sample-downstream:8081', `http://127.0.0.1:${downstreamPort}`)
        .replace('http://gateway:8080', `http://127.0.0.1:${gatewayPort}`);
    // The sample's compose settings too: it checks the gateway's assertions against the gateway's keys.
    const downstreamEnv: Record<string, string> = { HOST: '127.0.0.1' };
    for (const [name, value] of Object.entries(compose.services['sample-downstream']!.environment ?? {}))
      downstreamEnv[name] = onLoopback(String(value));
    downstreamEnv.PORT = downstreamPort;
    const downstream = startImage(downstreamStage, apps.get('sample-downstream')!, downstreamEnv);
    await healthy(downstream, healthcheckCommand(last(downstreamStage, 'HEALTHCHECK')!), downstreamEnv);

    const service = compose.services.gateway!;
    const secrets = {
      TOLLGATE_LICENSE_KEY: 'license',
      TOLLGATE_JWT_SIGNING_KEY: 's'.repeat(40),
      TOLLGATE_ADMIN_API_KEY: 'admin-key-0123456789abcdef-0123456789',
    };
    const gatewayEnv: Record<string, string> = { HOST: '127.0.0.1' };
    for (const [name, value] of Object.entries(service.environment ?? {})) {
      gatewayEnv[name] = onLoopback(interpolate(String(value), secrets)).replace(
        'redis://redis:6379',
        redis?.url ?? '',
      );
    }
    gatewayEnv.PORT = gatewayPort;
    const gateway = startImage(gatewayStage, apps.get('gateway')!, gatewayEnv);

    await healthy(gateway, healthcheckCommand(last(gatewayStage, 'HEALTHCHECK')!), gatewayEnv);
    // Compose's readiness check, moved to the port this run uses.
    await healthy(
      gateway,
      service.healthcheck!.test.map((part) => part.replace(':8080/', `:${gatewayPort}/`)),
      gatewayEnv,
    );

    const url = `http://127.0.0.1:${gatewayPort}`;
    const api = new GatewayClient(url);
    const agent = await createAgentWithToken(api, await api.adminToken(secrets.TOLLGATE_ADMIN_API_KEY), {
      label: 'image',
      dailyTokenBudget: 10_000,
    });
    const client = await connectSdkClient(url, agent.token);
    try {
      const order = await eventually(
        () => client.callTool({ name: 'get_order', arguments: { id: 1001 } }),
        (result) => !result.isError,
      );
      expect(resultJson(order)).toMatchObject({ id: 1001 });
    } finally {
      await client.close();
    }

    gateway.child.kill('SIGTERM');
    const [code] = await once(gateway.child, 'exit');
    expect(code).toBe(0);
  });
});
