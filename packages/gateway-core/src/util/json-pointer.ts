/**
 * The value a same-document JSON pointer (`#/$defs/OrderId`,
 * `#/components/schemas/Repo`) leads to, or undefined when `ref` is not one
 * or leads nowhere. Own properties only: `#/__proto__` leads nowhere.
 */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node) && /^\d+$/.test(segment)) node = node[Number(segment)];
    else if (typeof node === 'object' && node !== null && !Array.isArray(node) && Object.hasOwn(node, segment))
      node = (node as Record<string, unknown>)[segment];
    else return undefined;
  }
  return node;
}
