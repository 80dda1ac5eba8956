/**
 * What the document adds to the schemas zod and the adapter give it: the
 * profile field rules (as a request may send a field and as the service
 * stores it), and what a zod schema's metadata says.
 */
import { z } from 'zod';
import { PROFILE_FIELD_TABLE, PROFILE_FIELDS, type ProfileField } from '../db/profile-fields.js';
import { HANDLE_PATTERN } from './domain/profile.js';
import type { JsonObject } from './openapi-operations.js';

/** Whether a zod input refuses unknown keys (the adapter drops this for refined schemas). */
export function refusesUnknownKeys(input: unknown): boolean {
  return input instanceof z.ZodObject && input.def.catchall instanceof z.ZodNever;
}

/** An https: URL as a request may spell it: schemes are case-insensitive (WHATWG URL). */
const HTTPS_SCHEME = '[Hh][Tt][Tt][Pp][Ss]:';

/** Surrounding whitespace, which the service trims before any rule, around `inner` or nothing. */
const trimmed = (inner: string) => String.raw`^\s*(?:${inner})?\s*$`;

/**
 * A profile field as a request may send it. The service trims surrounding
 * whitespace, and an empty value clears the field, before a rule applies, so
 * the patterns allow both: a validating proxy must never refuse what the
 * service accepts (docs/API.md, "Field rules in the document").
 */
export function requestFieldRules(field: ProfileField): JsonObject {
  const { rule, max } = PROFILE_FIELD_TABLE[field];
  if (rule === 'handle') return { pattern: trimmed(`@?${HANDLE_PATTERN.source.slice(1, -1)}`) };
  if (rule === 'url') return { pattern: trimmed(`${HTTPS_SCHEME}[\\s\\S]*`) };
  return { pattern: trimmed(String.raw`\S(?:[\s\S]{0,${max - 2}}\S)?`) };
}

/** A profile field as the service stores and sends it: exactly the rule. */
export function storedFieldRules(field: ProfileField): JsonObject {
  const { rule, min, max } = PROFILE_FIELD_TABLE[field];
  if (rule === 'handle') return { pattern: HANDLE_PATTERN.source };
  // Stored in its canonical WHATWG form: always lower-case https://.
  if (rule === 'url') return { format: 'uri', pattern: '^https://', maxLength: max };
  return { ...(min > 0 ? { minLength: min } : {}), maxLength: max };
}

/** Adds the field rules to every profile field of an object schema. */
export function addFieldRules(
  schema: JsonObject | undefined,
  rules: (field: ProfileField) => JsonObject,
) {
  const properties = schema?.properties as Record<string, JsonObject> | undefined;
  for (const field of PROFILE_FIELDS) {
    if (properties?.[field]) Object.assign(properties[field], rules(field));
  }
}

/** Schemas whose profile fields hold stored values (`handle`, `name`, `profileUrl`, …). */
export const STORED_PROFILE_SCHEMAS = ['User', 'UpdatedProfile', 'LeaderboardEntry'];

/** A zod schema's metadata (`.meta({ … })`). */
export function inputMeta(schema: unknown): Record<string, unknown> {
  return (schema instanceof z.ZodType ? schema.meta() : undefined) ?? {};
}

/** The `id` a zod schema was registered with (`.meta({ id })`). */
export function schemaId(schema: unknown): string | undefined {
  const { id } = inputMeta(schema);
  return typeof id === 'string' ? id : undefined;
}
