import { ALL_TIME_BOARD, monthBoard, weekBoard } from './boards.js';

/**
 * Seasons: ISO weeks (Monday 00:00 UTC to the next Monday) and calendar
 * months in UTC. A season's board is `week:2026-W47` / `month:2026-11`
 * (src/domain/boards.ts names them; the write path credits them), its id the
 * part after the colon.
 */
export type Period = 'all' | 'week' | 'month';
export type SeasonPeriod = Exclude<Period, 'all'>;

export interface Season {
  period: SeasonPeriod;
  /** `2026-W47` or `2026-11`. */
  id: string;
  /** The leaderboard_entries board: `week:2026-W47`, `month:2026-11`. */
  board: string;
  startsAt: Date;
  /** When the next season starts (exclusive end). */
  endsAt: Date;
}

const DAY_MS = 86_400_000;

/**
 * Default of SEASON_ARCHIVE_TIMEOUT_MS: how long the cut of a closed
 * season's final standings may run (docs/SEASONS.md, Archives).
 */
export const SEASON_ARCHIVE_TIMEOUT_MS = 120_000;

/** The season of `period` that holds `at`. */
export function seasonAt(period: SeasonPeriod, at: Date): Season {
  if (period === 'month') {
    const startsAt = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
    const endsAt = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
    return season(period, monthBoard(at), startsAt, endsAt);
  }
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const startsAt = new Date(day - weekday * DAY_MS);
  return season(period, weekBoard(at), startsAt, new Date(startsAt.getTime() + 7 * DAY_MS));
}

function season(period: SeasonPeriod, board: string, startsAt: Date, endsAt: Date): Season {
  return { period, id: board.slice(board.indexOf(':') + 1), board, startsAt, endsAt };
}

/** The season a board name stands for (`week:2026-W47`), or undefined for the all-time board. */
export function seasonOfBoard(board: string): { period: SeasonPeriod; id: string } | undefined {
  const [period, id] = board.split(':');
  return (period === 'week' || period === 'month') && id ? { period, id } : undefined;
}

/** Which board a read of `period` at `now` shows, and the season it is (none for `all`). */
export function currentBoard(
  period: Period,
  now: Date,
): { board: string; season: Season | undefined } {
  if (period === 'all') return { board: ALL_TIME_BOARD, season: undefined };
  const season = seasonAt(period, now);
  return { board: season.board, season };
}

/**
 * The season of `period` with id `id` (`2026-W47`, `2026-11`), or undefined
 * when `id` is not one (wrong format, week 54, month 13).
 */
export function parseSeason(period: SeasonPeriod, id: string): Season | undefined {
  const match = period === 'week' ? /^(\d{4})-W(\d{2})$/.exec(id) : /^(\d{4})-(\d{2})$/.exec(id);
  if (!match) return undefined;
  const year = Number(match[1]);
  const n = Number(match[2]);
  // Week 1 holds 4 January; its Monday plus n - 1 weeks. Month n's 1st.
  const at =
    period === 'week'
      ? new Date(Date.UTC(year, 0, 4) + (n - 1) * 7 * DAY_MS)
      : new Date(Date.UTC(year, n - 1, 1));
  const found = seasonAt(period, at);
  return n >= 1 && found.id === id ? found : undefined;
}

/** Whether `season` has ended at `now`. */
export function isClosed(season: Season, now: Date): boolean {
  return season.endsAt.getTime() <= now.getTime();
}
