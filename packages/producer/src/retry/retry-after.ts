const DELAY_SECONDS = /^\d+$/;
// Every HTTP date format starts with the day's name; without this check `Date.parse` reads "-5" as a year.
const HTTP_DATE_START = /^[A-Za-z]/;

/**
 * Reads a `Retry-After` header (RFC 9110: delay in seconds or an HTTP date) as a wait in ms; `undefined` when
 * absent or unreadable, in which case the producer's own backoff applies.
 */
export function parseRetryAfter(header: string | undefined, now: number = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  const date = HTTP_DATE_START.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
