// `pnpm dev`: runs the sample pair on the embedded defaults — the sample
// downstream (host-kit), a plain node:http API described by an OpenAPI
// document, and the gateway in development mode on the in-memory store —
// waits until both answer, then prints a development agent token and a
// ready-to-paste MCP client configuration. Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const DOWNSTREAM_PORT = process.env.DOWNSTREAM_PORT ?? '8081';
const OPENAPI_PORT = process.env.OPENAPI_PORT ?? '8082';
const openApiUrl = `http://127.0.0.1:${OPENAPI_PORT}`;
const GATEWAY_PORT = process.env.PORT ?? '8080';
const downstreamUrl = `http://127.0.0.1:${DOWNSTREAM_PORT}`;
const gatewayUrl = `http://127.0.0.1:${GATEWAY_PORT}`;
const children = [];

function start(name, entry, env) {
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = (line) => `[${name}] ${line}`;
  const pipe = (stream, out) =>
    stream.on('data', (chunk) => out.write(chunk.toString().trimEnd().split('\n').map(prefix).join('\n') + '\n'));
  pipe(child.stdout, process.stdout);
  pipe(child.stderr, process.stderr);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(prefix(`exited (${signal ?? code}); stopping`));
      stop(1);
    }
  });
  children.push(child);
  return child;
}

async function waitFor(url, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return response;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${what} did not become ready at ${url} within ${timeoutMs / 1000}s`);
}

let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
  void Promise.all(
    children.map(
      (child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve))),
    ),
  ).then(() => process.exit(code));
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

// The sample answers only calls signed by this gateway; its audience defaults to its own address, the gateway's DownstreamBaseUrl.
start('downstream', 'apps/sample-downstream/dist/main.js', {
  PORT: DOWNSTREAM_PORT,
  HOST: '127.0.0.1',
  GATEWAY_JWKS_URL: `${gatewayUrl}/.well-known/jwks.json`,
});
await waitFor(`${downstreamUrl}/gw/schema`, 'sample downstream');
// The second way: a plain node:http API whose tools the gateway imports from its OpenAPI document.
start('notes', 'apps/sample-openapi/src/main.mjs', { PORT: OPENAPI_PORT, HOST: '127.0.0.1' });
await waitFor(`${openApiUrl}/openapi.yaml`, 'sample OpenAPI API');

const gatewayEntry = 'apps/gateway/dist/main.js';
start('gateway', gatewayEntry, {
  NODE_ENV: 'development',
  PORT: GATEWAY_PORT,
  HOST: '127.0.0.1',
  Gw__LicenseKey: process.env.Gw__LicenseKey ?? 'development-license',
  Gw__ToolRegistry__DownstreamBaseUrl: downstreamUrl,
  Gw__Downstreams__notes__BaseUrl: openApiUrl,
  Gw__Downstreams__notes__Prefix: 'notes',
  Gw__Downstreams__notes__OpenApi: `${openApiUrl}/openapi.yaml`,
  Gw__Downstreams__notes__Operations__AllowWrite: 'createNote',
});
await waitFor(`${gatewayUrl}/health/ready`, 'gateway', 120_000);
const { token, expiresAt } = await (await waitFor(`${gatewayUrl}/dev/token`, 'gateway dev token')).json();
/** A package's version as installed here, so the printed command names exactly what the repository tests with. */
const installed = (name) =>
  JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
// npx on the user's own Node (20 on the README's machine) would pick an Inspector that runs there, an old one that
// refuses a URL server with arguments: pin the Inspector, and the Node 24 it needs (`-p node@…` puts it first on PATH);
// --loglevel=error: npm itself still runs on the user's Node and would warn about the engines it is not running.
const inspector = `npx -y --loglevel=error -p node@${installed('node')} -p @modelcontextprotocol/inspector@${installed('@modelcontextprotocol/inspector')} -- mcp-inspector`;
const mcpConfig = {
  mcpServers: {
    tollgate: { type: 'http', url: `${gatewayUrl}/mcp`, headers: { Authorization: `Bearer ${token}` } },
  },
};
console.log(`
Tollgate is running.
  gateway     ${gatewayUrl}   (MCP endpoint ${gatewayUrl}/mcp)
  downstream  ${downstreamUrl}   (host-kit: tool schema ${downstreamUrl}/gw/schema; tool routes answer only the gateway)
  notes       ${openApiUrl}   (plain node:http, tools notes_* imported from ${openApiUrl}/openapi.yaml)
  dashboard   ${gatewayUrl}/dashboard   (one-click sign-in from this machine)

Development agent token (expires ${expiresAt}):
  ${token}

MCP client configuration (paste into your client's config):
${JSON.stringify(mcpConfig, null, 2)}

Try it (from any folder):
  ${inspector} --cli ${gatewayUrl}/mcp --transport http \\
    --header "Authorization: Bearer ${token}" --method tools/list
Press Ctrl-C to stop.`);
