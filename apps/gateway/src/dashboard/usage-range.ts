/**
 * The overview's range picker: 24 h by hour, 7 d by hour, 30 d by day, or a
 * custom from/to (datetime-local, read as UTC). What it gives is passed to
 * the usage reader, which checks it as the management API does.
 */
export const RANGES = {
  '24h': { label: '24 h', days: 1, interval: 'hour' },
  '7d': { label: '7 d', days: 7, interval: 'hour' },
  '30d': { label: '30 d', days: 30, interval: 'day' },
} as const;

export type RangeName = keyof typeof RANGES | 'custom';

export interface UsageRangeChoice {
  name: RangeName;
  params: { from?: string; to?: string; interval: 'hour' | 'day' };
  /** The custom form's values, as typed. */
  from: string;
  to: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A datetime-local value (`2030-01-31T12:00`) as UTC ISO; anything else is passed on for the reader to refuse. */
function utc(value: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00Z` : value;
}

export function usageRangeOf(query: Record<string, string | undefined>, now: number): UsageRangeChoice {
  const from = query.from ?? '';
  const to = query.to ?? '';
  if (query.range === 'custom' || (from !== '' && query.range === undefined)) {
    const days = from !== '' && to !== '' ? (Date.parse(utc(to)) - Date.parse(utc(from))) / DAY_MS : 1;
    return {
      name: 'custom',
      params: { from: utc(from), ...(to !== '' ? { to: utc(to) } : {}), interval: days > 7 ? 'day' : 'hour' },
      from,
      to,
    };
  }
  const name = query.range !== undefined && query.range in RANGES ? (query.range as keyof typeof RANGES) : '24h';
  const range = RANGES[name];
  return {
    name,
    params: { from: new Date(now - range.days * DAY_MS).toISOString(), interval: range.interval },
    from,
    to,
  };
}
