// Reads a V8 .cpuprofile (node --cpu-prof) and prints the functions with the
// most self time, and the same time grouped by package.
//
//   node bench/profile-summary.mjs <file.cpuprofile> [--top 25] [--from-ns N --to-ns N]
//
// --from-ns/--to-ns keep only samples inside a process.hrtime.bigint() window:
// V8 stamps samples with the same monotonic clock (in µs), so the benchmark can
// cut start-up (loading the embedding model) out of a profile of the load.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function summarizeProfile(file, { fromNs, toNs, top = 25 } = {}) {
  const profile = JSON.parse(await readFile(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const fromUs = fromNs === undefined ? -Infinity : Number(fromNs / 1000n);
  const toUs = toNs === undefined ? Infinity : Number(toNs / 1000n);

  const selfUs = new Map();
  let totalUs = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i];
    // A sample stands for the time until the next one.
    const spent = profile.timeDeltas[i + 1] ?? 0;
    if (at < fromUs || at > toUs) continue;
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + spent);
    totalUs += spent;
  }
  const windowed = Number.isFinite(fromUs) && totalUs > 0;
  if (totalUs === 0) throw new Error(`${file}: no samples${Number.isFinite(fromUs) ? ' inside the window' : ''}`);

  const byFunction = new Map();
  const byPackage = new Map();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber, columnNumber } = nodes.get(id).callFrame;
    const where = location(url);
    const name = functionName || '(anonymous)';
    const key = `${name} ${where}:${lineNumber + 1}:${columnNumber + 1}`;
    const entry = byFunction.get(key) ?? {
      function: name,
      location: url ? `${where}:${lineNumber + 1}` : '',
      package: packageOf(url, name),
      selfUs: 0,
    };
    entry.selfUs += us;
    byFunction.set(key, entry);
    byPackage.set(entry.package, (byPackage.get(entry.package) ?? 0) + us);
  }
  const share = (us) => Math.round((us / totalUs) * 1000) / 10;
  const functions = [...byFunction.values()]
    .sort((a, b) => b.selfUs - a.selfUs)
    .slice(0, top)
    .map((entry) => ({ ...entry, selfMs: Math.round(entry.selfUs / 100) / 10, selfPercent: share(entry.selfUs) }));
  const packages = [...byPackage.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => ({ package: name, selfMs: Math.round(us / 100) / 10, selfPercent: share(us) }));

  const lines = [
    `${Math.round(totalUs / 1000)} ms of samples${windowed ? ' inside the load window' : ''}`,
    '',
    '| self % | self ms | function | package | location |',
    '| ---: | ---: | --- | --- | --- |',
    ...functions.map((f) => `| ${f.selfPercent} | ${f.selfMs} | \`${f.function}\` | ${f.package} | ${f.location} |`),
    '',
    '| package | self % | self ms |',
    '| --- | ---: | ---: |',
    ...packages.map((p) => `| ${p.package} | ${p.selfPercent} | ${p.selfMs} |`),
  ];
  return {
    text: lines.join('\n'),
    data: { totalMs: Math.round(totalUs / 1000), functions: functions.map(({ selfUs, ...f }) => f), packages },
  };
}

/** A short, readable file location: relative to the repo, pnpm store paths cut to the package. */
function location(url) {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/(.+)$/.exec(path);
  if (pnpm) return pnpm[1];
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
}

function packageOf(url, name) {
  if (!url) return name === '(garbage collector)' ? 'GC' : name.startsWith('(') ? name : 'native (V8 builtins)';
  if (url.startsWith('node:')) return 'node core';
  const path = url.replace(/^file:\/\//, '');
  const dependency = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (dependency) return dependency[1];
  const workspace = /\/(packages|apps)\/([^/]+)\//.exec(path);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  return location(url);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' }, 'from-ns': { type: 'string' }, 'to-ns': { type: 'string' } },
  });
  if (positionals.length === 0) {
    process.stderr.write(
      'usage: node bench/profile-summary.mjs <file.cpuprofile>... [--top 25] [--from-ns N --to-ns N]\n',
    );
    process.exit(2);
  }
  for (const file of positionals) {
    const summary = await summarizeProfile(file, {
      top: Number(values.top),
      fromNs: values['from-ns'] === undefined ? undefined : BigInt(values['from-ns']),
      toNs: values['to-ns'] === undefined ? undefined : BigInt(values['to-ns']),
    });
    process.stdout.write(`## ${file}\n\n${summary.text}\n\n`);
  }
}
