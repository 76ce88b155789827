/** The second last formatted, and its ISO 8601 text up to and with the dot before the milliseconds. */
let lastSecond = Number.NaN;
let lastPrefix = '';

/**
 * `new Date().toISOString()` for now, at a fraction of its cost (about 0.5 us
 * a call on Node 24, paid by every audit record): the text up to the second
 * is kept while the second lasts, and only the milliseconds are added.
 */
export function isoNow(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== lastSecond) {
    // The cut is from the end: the year may be longer than four digits.
    lastPrefix = new Date(second * 1000).toISOString().slice(0, -4);
    lastSecond = second;
  }
  const ms = now - second * 1000;
  return lastPrefix + (ms < 10 ? '00' : ms < 100 ? '0' : '') + ms + 'Z';
}
