import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { matchesGlob } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseGatewayConfig } from '../src/config/gateway-config.js';
import { readEnvironment } from '../src/config/sources.js';
import { interpolate, MissingVariableError, readCompose, requiredVariables } from './support/compose-file.js';
import { configKeyOf, readConfigKeys } from './support/config-keys.js';
import {
  all,
  environment,
  execForm,
  healthcheckCommand,
  last,
  readDockerfile,
  stageNamed,
} from './support/dockerfile.js';
import { hasPath, readChart, skeleton, TEMPLATE_MARKER, valuesPaths } from './support/helm-chart.js';

/**
 * Static checks of the deployment artifacts. No Docker engine, Kubernetes
 * cluster or helm binary runs here: what can be checked without them is
 * checked against the real code (entry point, config keys, health routes).
 * deployment-runtime.test.ts runs the image's build and start commands.
 */
const root = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const read = (path: string) => readFileSync(root(path), 'utf8');

const stages = readDockerfile(read('Dockerfile'));
const compose = readCompose(root('docker-compose.yml'));
const chart = readChart(root('deploy/helm/tollgate'));
const configKeys = readConfigKeys();
const gatewayPackage = JSON.parse(read('apps/gateway/package.json'));
const rootPackage = JSON.parse(read('package.json'));

const REQUIRED_KEYS = ['Gw:LicenseKey', 'Gw:Jwt:SigningKey', 'Gw:ToolRegistry:DownstreamBaseUrl'];
const SECRET_KEYS = ['Gw:LicenseKey', 'Gw:Jwt:SigningKey', 'Gw:Admin:ApiKey'];

function unknownKeys(envNames: string[]): string[] {
  return envNames.filter((name) => configKeyOf(name, configKeys) === undefined);
}

describe('configuration keys read from the gateway source', () => {
  it('finds the schema keys, the open sections and the process variables', () => {
    for (const key of [
      ...REQUIRED_KEYS,
      'ConnectionStrings:Store',
      'Gw:Admin:ApiKey',
      'PORT',
      'HOST',
      'NODE_ENV',
      'LOG_LEVEL',
    ]) {
      expect(configKeys.keys, key).toContain(key);
    }
    expect(configKeys.sections).toContain('Gw:Downstream:Headers');
    expect(configKeyOf('GW__JWT__SIGNINGKEY', configKeys)).toBe('Gw:Jwt:SigningKey');
    expect(configKeyOf('Gw__Downstream__Headers__Authorization', configKeys)).toBe(
      'Gw:Downstream:Headers:Authorization',
    );
    expect(configKeyOf('Gw__Jwt__Key', configKeys)).toBeUndefined();
    expect(configKeyOf('Gw__Downstream__Headers', configKeys)).toBeUndefined();
  });
});

describe('Dockerfile', () => {
  const gateway = stageNamed(stages, 'gateway');
  const downstream = stageNamed(stages, 'sample-downstream');

  it('builds the gateway by default, on Node 24 slim in every stage', () => {
    expect(stages.at(-1)?.name).toBe('gateway');
    for (const stage of stages) expect(stage.from, stage.name).toMatch(/^node:24(\.\d+)*-(bookworm-|trixie-)?slim$/);
  });

  it('installs the pnpm version the workspace pins', () => {
    const pinned = rootPackage.packageManager.split('@')[1];
    expect(all(stageNamed(stages, 'build'), 'ARG')).toContain(`PNPM_VERSION=${pinned}`);
  });

  it("starts the gateway with the app's own start command, on an entry point the build produces", () => {
    const command = execForm(last(gateway, 'CMD')!);
    expect(last(gateway, 'ENTRYPOINT')).toBeUndefined();
    expect(command.join(' ')).toBe(gatewayPackage.scripts.start);
    expect(command[0]).toBe('node');
    expect(existsSync(root(`apps/gateway/${command[1]}`)), 'apps/gateway/dist/main.js (run the build first)').toBe(
      true,
    );
  });

  it('starts the sample downstream with its start command', () => {
    const downstreamPackage = JSON.parse(read('apps/sample-downstream/package.json'));
    expect(execForm(last(downstream, 'CMD')!).join(' ')).toBe(downstreamPackage.scripts.start);
  });

  it('probes /health/live with node (slim images have no curl), on the port it listens on', () => {
    const probe = healthcheckCommand(last(gateway, 'HEALTHCHECK')!);
    expect(probe[0]).toBe('node');
    expect(probe.join(' ')).toContain('/health/live');
    expect(environment(gateway).PORT).toBe('8080');
    expect(all(gateway, 'EXPOSE')).toEqual(['8080']);
  });

  it('bounds the gateway’s V8 heap with flags Node accepts in NODE_OPTIONS (the ones pnpm bench measures with)', () => {
    const options = environment(gateway).NODE_OPTIONS ?? '';
    expect(options).toMatch(/--max-old-space-size=\d+/);
    expect(options).toMatch(/--max-semi-space-size=\d+/);
    const check = spawnSync(process.execPath, ['-e', 'process.exit(0)'], {
      env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: options },
      encoding: 'utf8',
    });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('runs both images as a non-root numeric user', () => {
    for (const stage of [gateway, downstream]) {
      const user = last(stage, 'USER');
      expect(user, stage.name).toMatch(/^\d+(:\d+)?$/);
      expect(Number(user!.split(':')[0]), stage.name).toBeGreaterThan(0);
    }
  });

  it('ships only the deployed production folder into the runtime images', () => {
    for (const stage of [gateway, downstream]) {
      const copies = all(stage, 'COPY');
      expect(copies.length).toBeGreaterThan(0);
      for (const copy of copies) expect(copy, stage.name).toMatch(/^--from=build \/out\//);
    }
    const deploys = all(stageNamed(stages, 'build'), 'RUN').filter((run) => /\bdeploy\b/.test(run));
    for (const deploy of deploys) expect(deploy).toContain('--prod');
  });
});

describe('.dockerignore', () => {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const ignored = (path: string) => patterns.some((pattern) => !pattern.startsWith('!') && matchesGlob(path, pattern));

  it('keeps installs, build outputs and local secrets out of the build context, at every depth', () => {
    for (const path of [
      'node_modules',
      'apps/gateway/node_modules',
      'packages/gateway-core/node_modules',
      'apps/gateway/dist',
      'packages/host-kit/dist',
      '.env',
      '.git',
    ]) {
      expect(ignored(path), path).toBe(true);
    }
  });

  it('sends what the build needs', () => {
    for (const path of [
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      '.npmrc',
      'turbo.json',
      'apps/gateway/src/main.ts',
      'apps/sample-downstream/agent-tools.json',
      'packages/gateway-core/src/index.ts',
    ]) {
      expect(ignored(path), path).toBe(false);
    }
  });
});

describe('docker-compose.yml', () => {
  const { services } = compose;
  const gateway = services.gateway!;
  const secrets = {
    TOLLGATE_LICENSE_KEY: 'license',
    TOLLGATE_JWT_SIGNING_KEY: 'k'.repeat(32),
    TOLLGATE_ADMIN_API_KEY: '3f9c1a7e5b2d4c6a8e0f1b3d5a7c9e2f',
  };
  const resolved = (env: Record<string, string | undefined>) =>
    Object.fromEntries(
      Object.entries(gateway.environment ?? {}).map(([name, value]) => [name, interpolate(String(value), env)]),
    );

  it('runs redis, the gateway and the sample downstream, each with a healthcheck', () => {
    expect(Object.keys(services).sort()).toEqual(['gateway', 'redis', 'sample-downstream']);
    for (const [name, service] of Object.entries(services)) {
      expect(service.healthcheck?.test[0], name).toMatch(/^CMD(-SHELL)?$/);
      expect(service.healthcheck!.test.length, name).toBeGreaterThan(1);
    }
    expect(services.redis!.image).toMatch(/^redis:(7|8)/);
    expect(gateway.healthcheck!.test.join(' ')).toMatch(/\/health\/(ready|live)/);
  });

  it('builds the app images from targets the Dockerfile has', () => {
    expect(gateway.build?.target).toBe('gateway');
    expect(services['sample-downstream']!.build?.target).toBe('sample-downstream');
    for (const service of [gateway, services['sample-downstream']!]) stageNamed(stages, service.build!.target!);
  });

  it('starts the gateway once redis and the downstream are healthy', () => {
    expect(gateway.depends_on).toEqual({
      redis: { condition: 'service_healthy' },
      'sample-downstream': { condition: 'service_healthy' },
    });
  });

  it('names only configuration keys the gateway reads, the required ones included', () => {
    const names = Object.keys(gateway.environment ?? {});
    expect(unknownKeys(names)).toEqual([]);
    const keys = names.map((name) => configKeyOf(name, configKeys));
    for (const key of [...REQUIRED_KEYS, 'ConnectionStrings:Store', 'Gw:Admin:ApiKey']) expect(keys).toContain(key);
  });

  it('takes every secret from the environment and refuses to start without it', () => {
    for (const [name, value] of Object.entries(gateway.environment ?? {})) {
      const key = configKeyOf(name, configKeys)!;
      expect(requiredVariables(String(value)).length, name).toBe(SECRET_KEYS.includes(key) ? 1 : 0);
    }
    for (const missing of Object.keys(secrets)) {
      expect(() => resolved({ ...secrets, [missing]: '' }), missing).toThrow(MissingVariableError);
    }
  });

  it('is a configuration the gateway accepts, pointing at the redis and downstream services', () => {
    const { config } = parseGatewayConfig(readEnvironment(resolved(secrets)));
    expect(config.development).toBe(false);
    expect(config.store.connectionString).toBe('redis://redis:6379');
    expect(config.downstream.baseUrl).toBe(
      `http://sample-downstream:${services['sample-downstream']!.environment!.PORT}`,
    );
    expect(gateway.ports).toContain(`${config.server.port}:${config.server.port}`);
  });
});

describe('Helm chart', () => {
  const { chart: meta, values, templates } = chart;
  const manifest = (file: string) => skeleton(templates.get(file)!);
  const deployment = manifest('deployment.yaml');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];

  it('is a v2 application chart', () => {
    expect(meta).toMatchObject({ apiVersion: 'v2', name: 'tollgate', type: 'application' });
    expect(meta.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(meta.appVersion).toBeTruthy();
  });

  it('uses only values that values.yaml declares, and declares none it does not use', () => {
    const used = [...templates.values()].flatMap(valuesPaths);
    expect(used.filter((path) => !hasPath(values, path))).toEqual([]);
    const usedRoots = new Set(used.map((path) => path.split('.')[0]));
    expect(Object.keys(values).filter((key) => !usedRoots.has(key))).toEqual([]);
  });

  it('renders one manifest per template, each parsing as YAML', () => {
    const kinds = [...templates.keys()].filter((file) => file.endsWith('.yaml')).map((file) => manifest(file).kind);
    expect(kinds.sort()).toEqual(['Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Secret', 'Service']);
  });

  it('probes readiness on /health/ready and liveness on /health/live, on the container port', () => {
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(container.startupProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
  });

  it('sets resource requests and limits', () => {
    expect(templates.get('deployment.yaml')).toMatch(/resources:\n\s+\{\{- toYaml \.Values\.resources /);
    for (const kind of ['requests', 'limits']) {
      expect(values.resources[kind], kind).toEqual({
        cpu: expect.anything(),
        memory: expect.stringMatching(/^\d+(Mi|Gi)$/),
      });
    }
  });

  it('scales on CPU with autoscaling/v2 and keeps a pod through disruptions', () => {
    const hpa = manifest('hpa.yaml');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
    expect(hpa.spec.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: TEMPLATE_MARKER } },
      },
    ]);
    expect(values.autoscaling.minReplicas).toBeGreaterThanOrEqual(2);
    expect(values.autoscaling.maxReplicas).toBeGreaterThan(values.autoscaling.minReplicas);
    expect(manifest('pdb.yaml').apiVersion).toBe('policy/v1');
  });

  it('passes configuration keys the gateway reads, secrets by reference to keys the Secret holds', () => {
    const env: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[] =
      container.env;
    const names = env.map((entry) => entry.name).filter((name) => name !== TEMPLATE_MARKER);
    expect(unknownKeys([...names, ...Object.keys(values.config)])).toEqual([]);
    const byKey = new Map(env.map((entry) => [configKeyOf(entry.name, configKeys), entry]));
    for (const key of [...REQUIRED_KEYS, 'ConnectionStrings:Store', 'Gw:Admin:ApiKey'])
      expect(byKey.has(key), key).toBe(true);

    const secretKeys = Object.keys(manifest('secret.yaml').stringData);
    for (const key of [...SECRET_KEYS, 'ConnectionStrings:Store']) {
      const reference = byKey.get(key)?.valueFrom?.secretKeyRef;
      expect(reference, key).toBeDefined();
      expect(secretKeys).toContain(reference!.key);
    }
    expect(templates.get('secret.yaml')).toMatch(/^\{\{- if not \.Values\.secret\.existingSecret \}\}/);
  });

  it('runs as non-root on a read-only root filesystem, with /tmp writable', () => {
    expect(values.podSecurityContext).toMatchObject({ runAsNonRoot: true, runAsUser: expect.any(Number) });
    expect(values.podSecurityContext.runAsUser).toBeGreaterThan(0);
    expect(values.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
    expect(pod.volumes[0]).toMatchObject({ name: 'tmp', emptyDir: expect.any(Object) });
  });

  it('gives calls in flight longer to drain than the gateway shutdown deadline', () => {
    const { config } = parseGatewayConfig(
      readEnvironment({
        Gw__LicenseKey: 'x',
        Gw__Jwt__SigningKey: 'k'.repeat(32),
        Gw__ToolRegistry__DownstreamBaseUrl: 'http://d',
      }),
    );
    expect(values.terminationGracePeriodSeconds * 1000).toBeGreaterThan(
      config.http.shutdownDeadlineMs + values.preStopSleepSeconds * 1000,
    );
  });

  const helm = spawnSync('helm', ['version', '--short'], { encoding: 'utf8' });
  if (helm.error)
    console.warn(
      '\n⚠ helm not found: SKIPPING helm lint/template of deploy/helm/tollgate (static checks above still ran).\n',
    );
  it.skipIf(helm.error !== undefined)('passes helm lint and renders with the required values', () => {
    const required = [
      'downstream.baseUrl=http://api:8081',
      'redis.url=redis://redis:6379',
      'secret.licenseKey=l',
      `secret.jwtSigningKey=${'k'.repeat(32)}`,
      'secret.adminApiKey=a',
    ];
    const args = required.flatMap((value) => ['--set', value]);
    const lint = spawnSync('helm', ['lint', root('deploy/helm/tollgate'), ...args], { encoding: 'utf8' });
    expect(lint.status, lint.stdout + lint.stderr).toBe(0);
    const rendered = spawnSync('helm', ['template', 'tg', root('deploy/helm/tollgate'), ...args], { encoding: 'utf8' });
    expect(rendered.status, rendered.stderr).toBe(0);
    const kinds = parseAllDocuments(rendered.stdout)
      .map((document) => document.toJS()?.kind)
      .filter(Boolean);
    expect(kinds.sort()).toEqual(['Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Secret', 'Service']);
    const missing = spawnSync('helm', ['template', 'tg', root('deploy/helm/tollgate')], { encoding: 'utf8' });
    expect(missing.status).not.toBe(0);
  });
});
