import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Every Redis command an adapter sends names its keys to master health
 * (issue 25, finding 12): it goes through `command` (which requires the keys;
 * the typecheck holds that), `acrossMasters`, or `publish`. A call on the
 * client outside them would escape the watchdog and wait out the command
 * timeout on a frozen master of a cluster; this scan finds one.
 */
const ROUTED = new Set(['command', 'acrossMasters', 'publish']);
/** Where the routing itself lives: the watchdog, the health probes, the script runner. */
const NOT_ADAPTERS = new Set(['connection.ts', 'master-health.ts', 'scripts.ts']);
/** Client calls that are no keyed command: connection handling and the long-lived pub/sub subscription. */
const NOT_COMMANDS = new Set(['on', 'duplicate', 'connect', 'close', 'destroy', 'subscribe']);
/** A method called on a client, or a Lua script run on one. */
const CLIENT_CALL = /\bclient\s*\.\s*(\w+)\s*\(|\.run\(\s*(?:this\.)?client\b/g;

describe('the Redis adapters', () => {
  it('send every command through a helper that names its keys', () => {
    const dir = new URL('.', import.meta.url);
    const adapters = readdirSync(dir).filter(
      (name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !NOT_ADAPTERS.has(name),
    );
    expect(adapters).toEqual(expect.arrayContaining(['agents.ts', 'sessions.ts', 'streams.ts', 'changes.ts']));
    const unrouted = adapters.flatMap((name) => unroutedCalls(name, readFileSync(new URL(name, dir), 'utf8')));
    expect(unrouted).toEqual([]);
  });

  it('finds a command sent outside them', () => {
    const source = 'await command(c, () => this.client.get(key), key);\nawait this.client.sAdd(index, id);\n';
    expect(unroutedCalls('example.ts', source)).toEqual(['example.ts:2 sAdd']);
  });
});

function unroutedCalls(name: string, source: string): string[] {
  const code = blankCommentsAndTemplates(source);
  const found: string[] = [];
  for (const match of code.matchAll(CLIENT_CALL)) {
    const method = match[1] ?? 'script';
    if (NOT_COMMANDS.has(method) || insideRoutedCall(code, match.index)) continue;
    found.push(`${name}:${code.slice(0, match.index).split('\n').length} ${method}`);
  }
  return found;
}

/** Whether an enclosing call's callee, walking out through the unclosed parentheses before `at`, is a routed one. */
function insideRoutedCall(code: string, at: number): boolean {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    if (code[i] === ')') depth++;
    else if (code[i] === '(' && depth > 0) depth--;
    else if (code[i] === '(' && ROUTED.has(/(\w+)\s*(<[^()]*>)?\s*$/.exec(code.slice(0, i))?.[1] ?? '')) return true;
  }
  return false;
}

/** Comments and template literals (the Lua sources) blanked, lengths and lines kept: their parentheses are no code. */
function blankCommentsAndTemplates(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|`[^`]*`/g, (text) => text.replace(/[^\n]/g, ' '));
}
