/**
 * Which operations of a document are imported, and which unsafe ones may be
 * called: selectors `pulls/list` (an operationId), `tag:pulls`, or
 * `GET /repos/*` (a method, or `*`, and a path where `*` matches anything,
 * `/` included).
 */

export type OperationSelector =
  | { kind: 'operationId'; operationId: string }
  | { kind: 'tag'; tag: string }
  | { kind: 'route'; method: string; path: RegExp };

/** What a selector is matched against. */
export interface SelectableOperation {
  method: string;
  path: string;
  operationId: string | null;
  tags: readonly string[];
}

export class SelectorError extends Error {
  override readonly name = 'SelectorError';
}

const ROUTE_SELECTOR = /^([A-Za-z]+|\*)\s+(\/\S*)$/;

export function parseSelector(text: string): OperationSelector {
  const selector = text.trim();
  if (selector === '') throw new SelectorError('an empty selector');
  if (selector.startsWith('tag:')) {
    const tag = selector.slice('tag:'.length).trim();
    if (tag === '') throw new SelectorError(`"${selector}": tag: needs a tag name`);
    return { kind: 'tag', tag };
  }
  const route = ROUTE_SELECTOR.exec(selector);
  if (route) {
    const pattern = route[2]!.split('*').map(escapeRegExp).join('.*');
    return { kind: 'route', method: route[1]!.toUpperCase(), path: new RegExp(`^${pattern}$`) };
  }
  if (/\s/.test(selector))
    throw new SelectorError(
      `"${selector}": expected an operationId, tag:<tag> or "METHOD /path" (e.g. "GET /repos/*")`,
    );
  return { kind: 'operationId', operationId: selector };
}

/** A comma list of selectors, as the configuration holds them. */
export function parseSelectorList(text: string): OperationSelector[] {
  return text
    .split(',')
    .filter((part) => part.trim() !== '')
    .map(parseSelector);
}

export function selects(selector: OperationSelector, operation: SelectableOperation): boolean {
  switch (selector.kind) {
    case 'operationId':
      return operation.operationId === selector.operationId;
    case 'tag':
      return operation.tags.includes(selector.tag);
    case 'route':
      return (selector.method === '*' || selector.method === operation.method) && selector.path.test(operation.path);
  }
}

export function selectsAny(selectors: readonly OperationSelector[], operation: SelectableOperation): boolean {
  return selectors.some((selector) => selects(selector, operation));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
