import { z } from 'zod';
import ipaddr from 'ipaddr.js';
import {
  PROFILE_FIELD_TABLE,
  PROFILE_FIELDS,
  type FieldRule,
  type ProfileField,
  type ProfileFields,
} from '../../db/profile-fields.js';
import { teamKey } from '../../db/team-key.js';
import { validationError, type Issue } from '../app-error.js';
import { cleanedText, lengthRule } from './text.js';

/**
 * A partial write: a field that is absent (or `undefined`, as zod's optional
 * fields are typed) stays as it is; `null` clears it.
 */
export type ProfilePatch = { [F in keyof ProfileFields]?: ProfileFields[F] | undefined };

export const EMPTY_PROFILE: ProfileFields = Object.freeze(
  Object.fromEntries(PROFILE_FIELDS.map((field) => [field, null])) as ProfileFields,
);

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

const HANDLE = PROFILE_FIELD_TABLE.handle;

/** A stored handle: letters A–Z, digits and underscores (the leading `@` already dropped). */
export const HANDLE_PATTERN = new RegExp(`^[A-Za-z0-9_]{${HANDLE.min},${HANDLE.max}}$`);

/**
 * Any text value: well-formed Unicode, then NFC and trimmed (surrounding
 * spaces, tabs and newlines go), then no control, bidirectional-control or
 * invisible character left inside (src/domain/text.ts).
 */
const profileText = cleanedText('Must be a string or null');

/**
 * One nullable text field: the text rules, then an empty value means "clear
 * the field" (null), then the field's own rule on what is left.
 */
function textField(rule: z.ZodType<string, string>, description: string) {
  return profileText
    .nullable()
    .transform((value) => (value === '' ? null : value))
    .pipe(rule.nullable())
    .meta({ description });
}

const handleRule = z
  .string()
  .transform((value) => (value.startsWith('@') ? value.slice(1) : value))
  .refine(
    (value) => HANDLE_PATTERN.test(value),
    `Must be ${HANDLE.min}–${HANDLE.max} characters of letters A–Z, digits and underscores`,
  )
  .refine((value) => !RESERVED_HANDLES.has(value.toLowerCase()), 'This handle is reserved');

/**
 * profileUrl is stored in its canonical WHATWG form (`new URL(v).href`), the
 * form every browser and URL library reads the same way: `https:evil.com`,
 * `https:\\evil.com` and `https://evil.com\@good.com` are stored as what they
 * mean (`https://evil.com/`, `https://evil.com/@good.com`), then made a URI
 * (rfc3986Href). The length limit applies to what is stored.
 */
function urlRule(maxLength: number) {
  return z
    .string()
    .refine((value) => value.length <= maxLength, `Must be at most ${maxLength} characters`)
    .transform((value, ctx) => {
      // URL.parse is newer than Node 20.0.
      const url = URL.canParse(value) ? new URL(value) : null;
      const problem = profileUrlProblem(url);
      if (problem || !url) {
        ctx.addIssue({ code: 'custom', message: problem ?? HTTPS_URL_MESSAGE });
        return z.NEVER;
      }
      const stored = rfc3986Href(url);
      if (stored.length > maxLength) {
        ctx.addIssue({ code: 'custom', message: `Must be at most ${maxLength} characters` });
        return z.NEVER;
      }
      return stored;
    });
}

/**
 * What RFC 3986 allows raw in a path, query and fragment (pchar, `/`, `?`):
 * anything else left by the WHATWG serialiser (`[`, `]`, `|`, `^`, `{`, `}`,
 * `` ` ``, a second `#`, a `%` not starting an escape) is percent-encoded.
 */
const NOT_URI_CHARACTER = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]|%(?![0-9A-Fa-f]{2})/g;

function uriEncoded(part: string): string {
  return part.replace(NOT_URI_CHARACTER, (character) =>
    character === '%' ? '%25' : encodeURIComponent(character),
  );
}

/**
 * The WHATWG href as an RFC 3986 URI: the same URL (a browser sends the
 * encoded form either way), in a form every URI parser and `format: uri`
 * accept. The host is already in URI form (punycode, IP literals).
 */
function rfc3986Href(url: URL): string {
  const origin = `${url.protocol}//${url.host}`;
  const rest = url.href.slice(origin.length);
  const hashAt = rest.indexOf('#');
  if (hashAt === -1) return origin + uriEncoded(rest);
  return `${origin}${uriEncoded(rest.slice(0, hashAt))}#${uriEncoded(rest.slice(hashAt + 1))}`;
}

const HTTPS_URL_MESSAGE = 'Must be an absolute https: URL without credentials';

function profileUrlProblem(url: URL | null): string | undefined {
  if (!url || url.protocol !== 'https:' || url.hostname === '' || url.username || url.password) {
    return HTTPS_URL_MESSAGE;
  }
  if (isLocalHost(url.hostname)) {
    return 'Must point to a public host: not localhost, nor a loopback, private or link-local address';
  }
  return undefined;
}

/**
 * `localhost` (and its subdomains, RFC 6761), or an IP literal outside public
 * unicast space: loopback, private, link-local, unique-local, unspecified,
 * carrier-grade NAT, multicast, reserved, and IPv6 forms that embed an IPv4
 * address (mapped, NAT64, 6to4, Teredo). The WHATWG parser has already turned
 * decimal, hex and octal IPv4 forms into dotted quads.
 */
function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (!ipaddr.isValid(literal)) return false;
  if (!host.startsWith('[') && !ipaddr.IPv4.isValidFourPartDecimal(literal)) return false;
  return ipaddr.process(literal).range() !== 'unicast';
}

/** Each rule kind of the field table (db/profile-fields.ts), for a field's limits. */
const RULES: Record<
  FieldRule,
  (limits: { min: number; max: number }) => z.ZodType<string, string>
> = {
  text: ({ min, max }) => lengthRule(min, max),
  handle: () => handleRule,
  url: ({ max }) => urlRule(max),
};

/**
 * Per-field input schemas, from the field table: the text rules, then the
 * field's rule kind with its limits, described by the table's description.
 */
export const profileFieldSchemas = Object.fromEntries(
  PROFILE_FIELDS.map((field) => {
    const spec = PROFILE_FIELD_TABLE[field];
    return [field, textField(RULES[spec.rule](spec), spec.description)];
  }),
) as Record<ProfileField, ReturnType<typeof textField>>;

/**
 * A team to filter a leaderboard by: the text rules favoriteTeam gets (trimmed,
 * NFC, no control, bidi or invisible characters, favoriteTeam's length limit),
 * never empty.
 */
export const teamFilterSchema = profileText
  .pipe(lengthRule(1, PROFILE_FIELD_TABLE.favoriteTeam.max))
  .meta({
    description:
      'Only fans whose favoriteTeam is this team (compared ignoring case, compatibility forms ' +
      'and invisible characters, after the same trimming as profile fields); ranks are within ' +
      'the team.',
  });

/** Two teams are the same when their keys are (db/team-key.ts). */
function sameTeam(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return false;
  const key = teamKey(a);
  return key !== '' && key === teamKey(b);
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
  if (sameTeam(next.rivalTeam, next.favoriteTeam)) {
    const path = patch.rivalTeam !== undefined ? 'rivalTeam' : 'favoriteTeam';
    issues.push({ path, message: 'rivalTeam may not be the same team as favoriteTeam' });
  }
  if (issues.length > 0) throw validationError(issues);

  const changed = PROFILE_FIELDS.filter((field) => next[field] !== current[field]);
  return { next, changed };
}

/** How many of the profile fields hold a value. */
export function filledFieldCount(profile: ProfileFields): number {
  return PROFILE_FIELDS.filter((field) => profile[field] !== null).length;
}
