import { createHash } from 'node:crypto';

/**
 * Tool names for imported operations. Clients refuse names over 64
 * characters and several model APIs refuse anything outside
 * `[A-Za-z0-9_-]`, so names are cut to fit with the prefix, and a cut or a
 * clash is made unique by a short hash of what identifies the operation
 * (its method and path), never by its position in the document: the same
 * operation keeps its name when others are added or removed.
 */

export const MAX_TOOL_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

export interface NamedOperation {
  method: string;
  path: string;
  operationId: string | null;
}

/** A name changed to stay unique. */
export interface Renaming {
  operation: string;
  wanted: string;
  given: string;
}

/** `pulls/list` → `pulls_list`; without an operationId, `GET /repos/{owner}` → `get_repos_owner`. */
export function baseName(operation: NamedOperation): string {
  const source = operation.operationId ?? `${operation.method.toLowerCase()}_${operation.path.replace(/[{}]/g, '')}`;
  const name = source
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '');
  return name === '' ? operation.method.toLowerCase() : name;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
}

/** `name` within `max` characters: cut, with a hash of `identity` so two cut names stay apart. */
function fitted(name: string, max: number, identity: string): string {
  return name.length <= max ? name : `${name.slice(0, max - HASH_LENGTH - 1)}_${shortHash(identity)}`;
}

function routeOf(operation: NamedOperation): string {
  return `${operation.method} ${operation.path}`;
}

/**
 * One name per operation, in order, each unique and at most `max`
 * characters. Among operations wanting the same name, the one first by path
 * then method keeps it; the others get a hash of their method and path.
 */
export function assignToolNames(
  operations: readonly NamedOperation[],
  max: number,
): { names: string[]; renamings: Renaming[] } {
  const wanted = operations.map((operation) => fitted(baseName(operation), max, routeOf(operation)));
  const byName = new Map<string, number[]>();
  wanted.forEach((name, index) => byName.set(name, [...(byName.get(name) ?? []), index]));
  const names = [...wanted];
  const taken = new Set(wanted);
  const renamings: Renaming[] = [];
  for (const [name, indexes] of byName) {
    if (indexes.length < 2) continue;
    const ordered = indexes.toSorted((a, b) => compareRoutes(operations[a]!, operations[b]!));
    for (const index of ordered.slice(1)) {
      const route = routeOf(operations[index]!);
      let given = fitted(`${name}_${shortHash(route)}`, max, `${route}\n${name}`);
      for (let round = 1; taken.has(given); round++)
        given = fitted(`${name}_${shortHash(`${route}\n${round}`)}`, max, `${route}\n${name}\n${round}`);
      taken.add(given);
      names[index] = given;
      renamings.push({ operation: route, wanted: name, given });
    }
  }
  return { names, renamings };
}

function compareRoutes(a: NamedOperation, b: NamedOperation): number {
  return a.path === b.path ? (a.method < b.method ? -1 : a.method > b.method ? 1 : 0) : a.path < b.path ? -1 : 1;
}
