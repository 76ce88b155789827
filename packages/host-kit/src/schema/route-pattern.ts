/**
 * Hono path syntax → spec route template. `:id{[0-9]+}`, `:id?` and a named
 * regex catch-all `:path{.+}` all become `{name}`. An unnamed `*` cannot be
 * filled by an agent, so it is reported instead of converted.
 */
export type RoutePatternResult =
  | { ok: true; routePattern: string; routeParams: string[] }
  | { ok: false; reason: 'unnamed-wildcard' };

export function toRoutePattern(honoPath: string): RoutePatternResult {
  const routeParams: string[] = [];
  const segments = honoPath.split('/').map((segment) => {
    if (segment === '*') return null;
    if (!segment.startsWith(':')) return segment;
    const name = /^:([^{?]+)/.exec(segment)?.[1] ?? '';
    routeParams.push(name);
    return `{${name}}`;
  });
  if (segments.includes(null)) return { ok: false, reason: 'unnamed-wildcard' };
  return { ok: true, routePattern: segments.join('/'), routeParams };
}
