/*
 * The error statuses an operation declares in its meta (`errorResponses`):
 * openapi.json documents each with the envelope and the codes that answer
 * with it. The usual sets, named once.
 */

/** What a JSON-body write can fail with. */
export const WRITE_ERRORS = [400, 401, 403, 409, 413, 415, 429, 500, 503];

/** What a read without parameters can fail with. */
export const READ_ERRORS = [401, 403, 429, 500, 503];

/** What a read with query parameters (a cursor, a limit) can fail with. */
export const QUERY_ERRORS = [400, ...READ_ERRORS];

/** A read of something the caller may not have (a leaderboard entry, a closed season). */
export const LOOKUP_ERRORS = [400, 401, 403, 404, 429, 500, 503];
