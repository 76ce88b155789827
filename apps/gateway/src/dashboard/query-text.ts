import type { Context } from 'hono';

/** Filters are echoed into the page and matched against every row: a long one is only a cost. */
export const MAX_FILTER_LENGTH = 200;

/** A filter from the query string, trimmed and capped; '' when absent. */
export function queryText(c: Context, name: string): string {
  return (c.req.query(name) ?? '').trim().slice(0, MAX_FILTER_LENGTH);
}
