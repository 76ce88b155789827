/**
 * Hono path syntax → spec route template. `:id{[0-9]+}`, `:id?` and a named
 * regex catch-all `:path{.+}` all become `{name}`. An unnamed `*` cannot be
 * filled by an agent, so it is reported instead of converted.
 */
export type RoutePatternResult =
  | { ok: true; routePattern: string; routeParams: string[] }
  | { ok: false; reason: 'unnamed-wildcard' };

// Hono's own label rule: a parameter is a whole segment, `:name`, optionally
// followed by a `{regex}` constraint and/or a `?` marking it optional.
const PARAMETER_SEGMENT = /^:([^{}?]+)(?:\{.*\})?\??$/;

export function toRoutePattern(honoPath: string): RoutePatternResult {
  const routeParams: string[] = [];
  const segments: string[] = [];
  for (const segment of splitSegments(honoPath)) {
    const parameter = PARAMETER_SEGMENT.exec(segment);
    if (parameter) {
      const name = parameter[1] as string;
      routeParams.push(name);
      segments.push(`{${name}}`);
    } else if (segment.includes('*')) {
      return { ok: false, reason: 'unnamed-wildcard' };
    } else {
      segments.push(segment);
    }
  }
  return { ok: true, routePattern: segments.join('/'), routeParams };
}

/** Splits on `/` except inside a `{regex}`, which may itself contain slashes. */
function splitSegments(path: string): string[] {
  const segments: string[] = [];
  let current = '';
  let depth = 0;
  for (const char of path) {
    if (char === '{') depth++;
    else if (char === '}') depth = Math.max(0, depth - 1);
    if (char === '/' && depth === 0) {
      segments.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  segments.push(current);
  return segments;
}
