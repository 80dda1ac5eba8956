import { CONFIG_VARIABLES } from './config-env.js';

/**
 * Prefixes only this service's variables use: an unknown variable starting
 * with one is most likely meant for us (`DATABASE_POOL_SIZE`, `LIVE_MAX_STREAM`).
 */
const OUR_PREFIXES = [
  'ALLOW_EMBEDDED_',
  'AUTH_',
  'CATALOG_',
  'DATABASE_',
  'HANDLE_',
  'LIVE_',
  'METRICS_',
  'MIGRATE_',
  'RATE_LIMIT_',
  'SEASON_ARCHIVE_',
  'SHUTDOWN_',
  'USER_STATE_',
  'WEBHOOK_',
];

export interface UnknownVariable {
  readonly name: string;
  /** The known variable it is closest to, when it is a near miss of one. */
  readonly didYouMean: string | undefined;
}

/**
 * Environment variables that are not ours but look like they were meant to
 * be: a near miss of a known name (`DATABSE_URL`, `LOG_LEVLE`: at most two
 * edits, one for names under eight characters) or one of our prefixes
 * (`WEBHOOK_SECRETS`). The server warns about them once at start; they are
 * not an error, because the environment is shared with other software.
 */
export function unknownVariables(
  env: NodeJS.ProcessEnv,
  known: readonly string[] = CONFIG_VARIABLES,
): UnknownVariable[] {
  const knownSet = new Set(known);
  const found: UnknownVariable[] = [];
  for (const name of Object.keys(env).sort()) {
    if (knownSet.has(name)) continue;
    const upper = name.toUpperCase();
    let didYouMean: string | undefined;
    let best = Infinity;
    for (const candidate of known) {
      const distance = editDistance(upper, candidate);
      const allowed = candidate.length < 8 ? 1 : 2;
      if (distance <= allowed && distance < best) {
        best = distance;
        didYouMean = candidate;
      }
    }
    if (didYouMean !== undefined || OUR_PREFIXES.some((prefix) => upper.startsWith(prefix))) {
      found.push({ name, didYouMean });
    }
  }
  return found;
}

/**
 * Optimal string alignment distance (Levenshtein with adjacent
 * transpositions): `DATABSE_URL` is one edit from `DATABASE_URL`.
 */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}
