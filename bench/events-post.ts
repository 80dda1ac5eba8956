/**
 * One batch to `POST /api/events` (docs/ACTIVITY.md), as every bench that
 * records events sends it: `npm run bench:events` (bench/events-load.ts,
 * bench/events-burst.ts) and the match-day burst of `npm run bench:live`
 * (bench/live-writes.ts).
 */

/** One event of a batch: the sender's id, the fan's `sub`, a catalog event type. */
export interface EventInput {
  id: string;
  subject: string;
  type: string;
  value?: number;
}

/** One event's answer, in the order sent: `recorded`, `duplicate` or `rejected` (with `error`). */
export interface EventResult {
  status: string;
  error?: { code: string; message?: string };
  [field: string]: unknown;
}

/** A batch's answer: its results (a 200), or why it has none; `ms` from sending to the whole answer read. */
export type BatchAnswer =
  | { ms: number; results: EventResult[]; error?: undefined }
  | { ms: number | undefined; results?: undefined; error: string };

/** The request body of a batch. */
export function batchBody(events: EventInput[]): string {
  return JSON.stringify({ events });
}

/**
 * An error's text with its causes: `fetch` rejects with `TypeError: fetch
 * failed` and says why only in `cause` (ECONNRESET, other side closed, …).
 */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 4; depth += 1) {
    if (e instanceof Error) {
      const code = (e as NodeJS.ErrnoException).code;
      parts.push(`${e.name}: ${e.message}${code && !e.message.includes(code) ? ` (${code})` : ''}`);
      e = e.cause;
    } else {
      parts.push(String(e));
      e = undefined;
    }
  }
  return parts.join(' ← ');
}

/**
 * Posts `body` (a batch) to `${base}/api/events` with the service token
 * `token`. A 200 whose results do not match `expected` events (when given)
 * is an error too.
 */
export async function postEvents(
  base: string,
  token: string,
  body: string,
  expected?: number,
): Promise<BatchAnswer> {
  const sent = performance.now();
  let ms: number | undefined;
  try {
    const response = await fetch(`${base}/api/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    ms = performance.now() - sent;
    if (response.status !== 200) return { ms, error: `${response.status} ${text.slice(0, 300)}` };
    const results = (JSON.parse(text) as { data: { results: EventResult[] } }).data.results;
    if (expected !== undefined && results.length !== expected) {
      return { ms, error: `${results.length} results for ${expected} events` };
    }
    return { ms, results };
  } catch (error) {
    return { ms, error: errorText(error) };
  }
}
