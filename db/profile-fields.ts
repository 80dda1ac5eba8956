/**
 * The profile's fields, once: each field's name, its column, its limits, the
 * kind of rule it follows and its description. Everything else is derived
 * from this table: the row types (db/schema.ts), the write's column lists
 * (db/queries/user-write/), the input rules (src/domain/profile.ts, which
 * implements each rule kind), the zod schemas of routers/profile-schemas.ts and so
 * openapi.json, where the descriptions and limits appear.
 *
 * Limits count Unicode code points after NFC and trimming
 * (docs/decisions/0001-text-normalisation.md, 0002-profile-field-rules.md). Rule kinds:
 * - `text`: any clean text of `min`–`max` characters;
 * - `handle`: `min`–`max` of A–Z a–z 0–9 _, a leading `@` dropped, not
 *   reserved, unique ignoring case, never cleared once set;
 * - `url`: an absolute https: URL to a public host, stored in its canonical
 *   form, at most `max` characters in that form.
 *
 * In the contract's order (docs/CONTRACT.md, "Field rules").
 */
export const PROFILE_FIELD_TABLE = {
  name: field('name', 'text', { min: 1, max: 80 }, ({ min, max }) =>
    cleared(`Display name, ${min}–${max} characters.`),
  ),
  handle: field(
    'handle',
    'handle',
    { min: 3, max: 30 },
    ({ min, max }) =>
      `Unique handle: ${min}–${max} of A–Z a–z 0–9 _, a leading @ is dropped, unique ignoring ` +
      'case, reserved words refused. Once set it can be changed but not cleared.',
  ),
  location: field('location', 'text', { min: 0, max: 100 }, upTo),
  favoriteSport: field('favorite_sport', 'text', { min: 0, max: 50 }, upTo),
  favoriteTeam: field('favorite_team', 'text', { min: 0, max: 100 }, upTo),
  favoritePlayer: field('favorite_player', 'text', { min: 0, max: 100 }, upTo),
  rivalTeam: field('rival_team', 'text', { min: 0, max: 100 }, ({ max }) =>
    cleared(
      `Up to ${max} characters; may not be the same team as favoriteTeam (compared ignoring ` +
        'case, compatibility forms and invisible characters).',
    ),
  ),
  profileUrl: field('profile_url', 'url', { min: 0, max: 2048 }, ({ max }) =>
    cleared(
      'Absolute https: URL to a public host (not localhost or a private, loopback or ' +
        `link-local IP address), at most ${max} characters; stored in its canonical form ` +
        '(WHATWG URL href, with what RFC 3986 forbids percent-encoded).',
    ),
  ),
} as const;

/** How a field's value is checked (the kinds above; src/domain/profile.ts implements them). */
export type FieldRule = 'text' | 'handle' | 'url';

export type ProfileField = keyof typeof PROFILE_FIELD_TABLE;

/** The profile fields in the contract's order. */
export const PROFILE_FIELDS = Object.keys(PROFILE_FIELD_TABLE) as readonly ProfileField[];

/** The profile fields' values, shared by PATCH, onboarding and every DTO: text or null. */
export type ProfileFields = { [F in ProfileField]: string | null };

interface Limits {
  min: number;
  max: number;
}

function field<const C extends string, const R extends FieldRule>(
  column: C,
  rule: R,
  limits: Limits,
  describe: (limits: Limits) => string,
) {
  return { column, rule, ...limits, description: describe(limits) };
}

function cleared(description: string): string {
  return `${description} null or "" clears it.`;
}

function upTo({ max }: Limits): string {
  return cleared(`Up to ${max} characters.`);
}
