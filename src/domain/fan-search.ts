import { PROFILE_FIELD_TABLE } from '../../db/profile-fields.js';

/**
 * What an operator's search text can name (docs/CATALOG.md, "Finding a
 * fan"): a user id when it is a UUID, a handle (its key: lower-cased, a
 * leading `@` dropped) when it is made of handle characters; it is always
 * tried as a subject too, exactly as typed (subjects are opaque).
 */
export function fanQueryKinds(query: string): { id?: string; handleKey?: string } {
  const kinds: { id?: string; handleKey?: string } = {};
  if (UUID.test(query)) kinds.id = query.toLowerCase();
  const handle = query.startsWith('@') ? query.slice(1) : query;
  if (HANDLE_CHARACTERS.test(handle)) kinds.handleKey = handle.toLowerCase();
  return kinds;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A handle's first letters, from one up to a whole handle (the characters HANDLE_PATTERN allows). */
const HANDLE_CHARACTERS = new RegExp(`^[A-Za-z0-9_]{1,${PROFILE_FIELD_TABLE.handle.max}}$`);
