/**
 * The guard (the fans' versions), the profile and the handle: the parts of
 * a fan's own writes (PATCH, onboarding) and of bans.
 */
import { sql } from 'kysely';
import { PROFILE_FIELD_TABLE, PROFILE_FIELDS } from '../../../profile-fields.js';
import { scopeJson } from '../state.js';
import { part, rowsOf, type Part, type Plans } from './part.js';

/**
 * The fans (one row each, in plan order: what the statement's result rows
 * follow) and the guard: each fan's row locked (in id order when there are
 * several) and its version moved on if it is still the one the plan was
 * made from; the ban or unban and the first onboarding set with it.
 */
export function guardPart(plans: Plans): Part {
  const fans = plans.map((plan, ord) => ({
    ord,
    user_id: plan.userId,
    expected_version: plan.expectedVersion,
    onboard: plan.onboard,
    ban: plan.ban ?? null,
    history_limit: plan.historyLimit,
    rank: plan.rank,
    return_scope: plan.returnStateOn ? scopeJson(plan.returnStateOn) : null,
  }));
  const ids = JSON.stringify(plans.map((plan) => plan.userId));
  return part('guard', { fans: JSON.stringify(fans), ids }, (v, { many }) => {
    // The fans' ids as an array the users' primary key is searched by: joined
    // to the fans' rows alone, the planner takes them for a hundred rows and
    // scans a small users table whole.
    // One fan's statement says so (LIMIT 1): a set-returning function is
    // costed at a hundred rows, and a hundred times the per-fan columns
    // priced one fan's write high enough for JIT compilation (~125 ms).
    const byId = sql`u.id = ANY (ARRAY(SELECT jsonb_array_elements_text(${v.ids}::jsonb)::uuid))`;
    return {
      ctes: [
        [
          'fans',
          sql`SELECT * FROM jsonb_to_recordset(${v.fans}::jsonb)
          AS f(ord integer, user_id uuid, expected_version integer, onboard boolean, ban text,
               history_limit integer, rank boolean, return_scope text)
          ${many ? sql`` : sql`LIMIT 1`}`,
        ],
        ...(many
          ? ([
              [
                // One order for every statement's row locks: no two wait on each other in a cycle.
                'locked',
                sql`SELECT u.id FROM users u WHERE ${byId} ORDER BY u.id FOR UPDATE`,
              ],
            ] as const)
          : []),
        [
          'guard',
          sql`UPDATE users u SET
          version = u.version + 1,
          banned_at = CASE f.ban WHEN 'ban' THEN coalesce(u.banned_at, now())
                                 WHEN 'unban' THEN NULL ELSE u.banned_at END,
          onboarded_at = CASE WHEN f.onboard THEN coalesce(u.onboarded_at, now())
                              ELSE u.onboarded_at END,
          updated_at = CASE WHEN f.onboard AND u.onboarded_at IS NULL THEN now()
                            ELSE u.updated_at END
        FROM fans f
        WHERE ${byId} AND u.id = f.user_id AND u.version = f.expected_version
          ${many ? sql`AND u.id IN (SELECT id FROM locked)` : sql``}
        RETURNING u.*`,
        ],
      ],
    };
  });
}

const PROFILE_COLUMNS = PROFILE_FIELDS.map((field) => PROFILE_FIELD_TABLE[field].column);
const columnsSql = sql.join(PROFILE_COLUMNS.map((column) => sql.raw(column)));

export function profilePart(plans: Plans): Part | undefined {
  const rows = rowsOf(plans, (plan) =>
    plan.profile
      ? [
          Object.fromEntries(
            PROFILE_FIELDS.map((field) => [
              PROFILE_FIELD_TABLE[field].column,
              plan.profile![field],
            ]),
          ),
        ]
      : [],
  );
  if (rows.length === 0) return undefined;
  return part('profile', { profiles: JSON.stringify(rows) }, (v) => ({
    ctes: [
      [
        'profile',
        sql`INSERT INTO profiles (user_id, ${columnsSql}, created_at, updated_at)
        SELECT g.id, ${sql.join(PROFILE_COLUMNS.map((column) => sql`p.${sql.raw(column)}`))},
               now(), now()
        FROM jsonb_to_recordset(${v.profiles}::jsonb)
          AS p(user_id uuid, ${sql.join(PROFILE_COLUMNS.map((column) => sql`${sql.raw(column)} text`))})
        JOIN guard g ON g.id = p.user_id
        ON CONFLICT (user_id) DO UPDATE SET
          ${sql.join(PROFILE_COLUMNS.map((column) => sql`${sql.raw(column)} = excluded.${sql.raw(column)}`))},
          updated_at = now()
        RETURNING *`,
      ],
    ],
    columns: [
      ['written_profile', sql`(SELECT to_json(p) FROM profile p WHERE p.user_id = f.user_id)`],
    ],
  }));
}

/**
 * A change of handle. The claim's row, if it is the fan's own or an expired
 * reservation, is removed so that the insert can take the key; the insert
 * reads that CTE first, so the delete has happened when it runs. Any other
 * row makes the insert fail on the primary key: the statement writes
 * nothing (apply.ts then writes each fan alone to find whose claim it was).
 * Reserved until now() + 0 days is free at once: an expired reservation.
 */
export function handlePart(plans: Plans): Part | undefined {
  const moves = rowsOf(plans, (plan) => (plan.handle ? [plan.handle] : []));
  if (moves.length === 0) return undefined;
  const claims = moves.flatMap((move) =>
    move.claimKey === undefined ? [] : [{ user_id: move.user_id, claim_key: move.claimKey }],
  );
  const releases = moves.flatMap(({ release, user_id }) =>
    release ? [{ user_id, release_key: release.key, reserve_days: release.reserveDays }] : [],
  );
  const history = moves.map(({ history, user_id }) => ({
    user_id,
    old_handle: history.oldHandle,
    new_handle: history.newHandle,
    kind: history.kind,
  }));
  const values = {
    claims: JSON.stringify(claims),
    releases: JSON.stringify(releases),
    history: JSON.stringify(history),
  };
  const key = `handle${claims.length > 0 ? '+claim' : ''}${releases.length > 0 ? '+release' : ''}`;
  return part(key, values, (v) => ({
    ctes: [
      ...(claims.length > 0
        ? ([
            [
              'handle_claims_asked',
              sql`SELECT h.user_id, h.claim_key FROM jsonb_to_recordset(${v.claims}::jsonb)
                AS h(user_id uuid, claim_key text) JOIN guard g ON g.id = h.user_id`,
            ],
            [
              'handle_free',
              sql`DELETE FROM handle_claims c USING handle_claims_asked h
              WHERE c.handle_key = h.claim_key
                AND (c.user_id = h.user_id OR c.reserved_until <= now())
              RETURNING c.handle_key`,
            ],
            [
              'handle_claim',
              sql`INSERT INTO handle_claims (handle_key, user_id, reserved_until, updated_at)
              SELECT h.claim_key, h.user_id, NULL, now() FROM handle_claims_asked h
              WHERE (SELECT count(*) FROM handle_free) >= 0
              RETURNING handle_key`,
            ],
          ] as const)
        : []),
      ...(releases.length > 0
        ? ([
            [
              'handle_release',
              sql`UPDATE handle_claims c SET
                reserved_until = now() + make_interval(days => r.reserve_days),
                updated_at = now()
              FROM jsonb_to_recordset(${v.releases}::jsonb)
                AS r(user_id uuid, release_key text, reserve_days integer)
              JOIN guard g ON g.id = r.user_id
              WHERE c.handle_key = r.release_key AND c.user_id = g.id
              RETURNING c.handle_key`,
            ],
          ] as const)
        : []),
      [
        'handle_logged',
        sql`INSERT INTO handle_history (user_id, old_handle, new_handle, kind, changed_at)
        SELECT g.id, h.old_handle, h.new_handle, h.kind, now()
        FROM jsonb_to_recordset(${v.history}::jsonb)
          AS h(user_id uuid, old_handle text, new_handle text, kind text)
        JOIN guard g ON g.id = h.user_id
        RETURNING id`,
      ],
    ],
  }));
}
