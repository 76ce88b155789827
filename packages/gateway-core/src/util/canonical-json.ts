/**
 * JSON with object keys sorted at every depth, so two argument objects that
 * mean the same thing serialize to the same string whatever order their keys
 * arrived in. Otherwise as `JSON.stringify`: undefined members are left out,
 * non-finite numbers become null.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}
