import { z } from 'zod';
import { PROFILE_FIELDS, type ProfileField, type ProfileFields } from '../../db/schema.js';
import { validationError, type Issue } from '../app-error.js';

// Defined with the table types (db/ imports nothing from src/); re-exported for the domain.
export { PROFILE_FIELDS, type ProfileField };

/**
 * A partial write: a field that is absent (or `undefined`, as zod's optional
 * fields are typed) stays as it is; `null` clears it.
 */
export type ProfilePatch = { [F in keyof ProfileFields]?: ProfileFields[F] | undefined };

export const EMPTY_PROFILE: ProfileFields = Object.freeze({
  name: null,
  handle: null,
  location: null,
  favoriteSport: null,
  favoriteTeam: null,
  favoritePlayer: null,
  rivalTeam: null,
  profileUrl: null,
});

/**
 * Handles that would impersonate the service or collide with routes. Compared
 * case-insensitively, after the leading `@` is dropped.
 */
export const RESERVED_HANDLES: ReadonlySet<string> = new Set([
  'admin',
  'administrator',
  'anonymous',
  'api',
  'help',
  'me',
  'mod',
  'moderator',
  'null',
  'official',
  'owner',
  'root',
  'staff',
  'superuser',
  'support',
  'system',
  'undefined',
]);

// \p{Cc}: C0 controls, DEL and C1 controls. Refused anywhere in the raw value,
// even where trimming would remove them: they are never intended text.
const CONTROL_CHARACTER = /\p{Cc}/u;
const HANDLE_PATTERN = /^[A-Za-z0-9_]{3,30}$/;

/** Length in Unicode code points, so an emoji counts as one character. */
function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}

/** NFC, trimmed; an empty result means "clear the field". */
function normalise(value: string | null): string | null {
  if (value === null) return null;
  const trimmed = value.normalize('NFC').trim();
  return trimmed === '' ? null : trimmed;
}

const rawText = z
  .string({ error: 'Must be a string or null' })
  .refine((value) => value.isWellFormed(), 'Must be valid Unicode text (no lone surrogates)')
  .refine((value) => !CONTROL_CHARACTER.test(value), 'Control characters are not allowed');

/**
 * One nullable text field: raw checks, then NFC + trim (empty → null), then the
 * field's own rule on the normalised value.
 */
function textField(rule: z.ZodType<string, string>, description: string) {
  return rawText.nullable().transform(normalise).pipe(rule.nullable()).meta({ description });
}

function maxLength(max: number, min = 0) {
  return z
    .string()
    .refine(
      (value) => codePoints(value) >= min && codePoints(value) <= max,
      min > 0 ? `Must be ${min}–${max} characters` : `Must be at most ${max} characters`,
    );
}

const handleRule = z
  .string()
  .transform((value) => (value.startsWith('@') ? value.slice(1) : value))
  .refine(
    (value) => HANDLE_PATTERN.test(value),
    'Must be 3–30 characters of letters A–Z, digits and underscores',
  )
  .refine((value) => !RESERVED_HANDLES.has(value.toLowerCase()), 'This handle is reserved');

const profileUrlRule = z
  .string()
  .refine((value) => value.length <= 2048, 'Must be at most 2048 characters')
  .refine(isHttpsUrl, 'Must be an absolute https: URL without credentials');

function isHttpsUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'https:' && url.hostname !== '' && !url.username && !url.password;
}

/** Per-field input schemas: the single definition of every field rule (DESIGN §3). */
export const profileFieldSchemas = {
  name: textField(maxLength(80, 1), 'Display name, 1–80 characters. null or "" clears it.'),
  handle: textField(
    handleRule,
    'Unique handle: 3–30 of A–Z a–z 0–9 _, a leading @ is dropped, unique ignoring case, ' +
      'reserved words refused. Once set it can be changed but not cleared.',
  ),
  location: textField(maxLength(100), 'Up to 100 characters. null or "" clears it.'),
  favoriteSport: textField(maxLength(50), 'Up to 50 characters. null or "" clears it.'),
  favoriteTeam: textField(maxLength(100), 'Up to 100 characters. null or "" clears it.'),
  favoritePlayer: textField(maxLength(100), 'Up to 100 characters. null or "" clears it.'),
  rivalTeam: textField(
    maxLength(100),
    'Up to 100 characters; may not equal favoriteTeam (ignoring case). null or "" clears it.',
  ),
  profileUrl: textField(
    profileUrlRule,
    'Absolute https: URL, at most 2048 characters. null or "" clears it.',
  ),
} satisfies Record<ProfileField, z.ZodType>;

/**
 * A team to filter a leaderboard by: the checks and normalisation favoriteTeam
 * gets (NFC, trimmed, no control characters, ≤ 100 characters), but never empty.
 */
export const teamFilterSchema = rawText
  .transform((value) => normalise(value) ?? '')
  .pipe(maxLength(100, 1))
  .meta({
    description:
      'Only fans whose favoriteTeam is this team, ignoring letter case (compared after the ' +
      'same trimming and Unicode normalisation as profile fields); ranks are within the team.',
  });

function sameIgnoringCase(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a.toLowerCase() === b.toLowerCase();
}

/**
 * Applies a validated patch to the stored profile and checks the rules that
 * need the stored values too. Returns the merged profile and the fields whose
 * value actually changed (empty when the write changes nothing).
 */
export function applyProfilePatch(
  current: ProfileFields,
  patch: ProfilePatch,
): { next: ProfileFields; changed: ProfileField[] } {
  const next = { ...EMPTY_PROFILE };
  for (const field of PROFILE_FIELDS) {
    next[field] = patch[field] === undefined ? current[field] : patch[field];
  }

  const issues: Issue[] = [];
  if (current.handle !== null && next.handle === null) {
    issues.push({ path: 'handle', message: 'A handle, once set, can be changed but not cleared' });
  }
  if (sameIgnoringCase(next.rivalTeam, next.favoriteTeam)) {
    const path = patch.rivalTeam !== undefined ? 'rivalTeam' : 'favoriteTeam';
    issues.push({ path, message: 'rivalTeam may not be the same team as favoriteTeam' });
  }
  if (issues.length > 0) throw validationError(issues);

  const changed = PROFILE_FIELDS.filter((field) => next[field] !== current[field]);
  return { next, changed };
}

/** How many of the eight fields hold a value. */
export function filledFieldCount(profile: ProfileFields): number {
  return PROFILE_FIELDS.filter((field) => profile[field] !== null).length;
}
