/**
 * Which boards an award credits (db/schema.ts describes the board model):
 * the all-time board and the seasons the write's clock falls in — its ISO
 * week and its calendar month, both in UTC.
 */
import { ALL_TIME_BOARD } from '../../db/schema.js';

export { ALL_TIME_BOARD };

/** 'week:2026-W48': the ISO week (Monday to Sunday, UTC) holding `at`. */
export function weekBoard(at: Date): string {
  // The ISO week-numbering year is the year of the week's Thursday.
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const weekday = day.getUTCDay() || 7;
  day.setUTCDate(day.getUTCDate() + 4 - weekday);
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  const week = Math.floor((day.getTime() - yearStart) / 86_400_000 / 7) + 1;
  return `week:${day.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/** 'month:2026-11': the calendar month (UTC) holding `at`. */
export function monthBoard(at: Date): string {
  return `month:${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The season boards a write at `at` credits, besides the all-time board. */
export function seasonBoards(at: Date): { week: string; month: string } {
  return { week: weekBoard(at), month: monthBoard(at) };
}

/** Every board a write at `at` may credit: the all-time board, then the season boards. */
export function writeBoards(at: Date): string[] {
  const { week, month } = seasonBoards(at);
  return [ALL_TIME_BOARD, week, month];
}
