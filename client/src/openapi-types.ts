// Generated from openapi.json by `npm run openapi` (openapi-typescript). Do not edit.

export interface paths {
    "/api/user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The signed-in user
         * @description The full user: profile fields, points balance and timestamps. Also before onboarding (onboardedAt is null, points 0).
         */
        get: operations["me"];
        put?: never;
        post?: never;
        /**
         * Delete the signed-in user’s account
         * @description Erases the account in one transaction: profile, quest progress, board entries and handle history are deleted; the ledger rows are kept without anything that points back at you; your handles are free for anyone at once. The same identity signing in afterwards starts as a new, empty user. Repeating the call does no harm: it answers the same way.
         */
        delete: operations["deleteAccount"];
        options?: never;
        head?: never;
        /**
         * Update the signed-in user’s profile
         * @description Changes any of the eight profile fields and returns the full user. Works before onboarding (the profile is created on first write). After onboarding, quests are synced and their points awarded in the same atomic write. A write that changes nothing leaves updatedAt alone.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/user/profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Onboard the signed-in user
         * @description Sets the given profile fields, marks the user onboarded, syncs quests (awarding their points through the ledger) and makes sure the user has a leaderboard entry, all in one atomic write. Idempotent: repeating it applies new field values but never awards the same points twice. 201 the first time, 200 after.
         */
        post: operations["onboardProfile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/points": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The signed-in user’s points ledger, one page at a time
         * @description Ledger entries, newest first. Pages follow nextCursor. Empty before onboarding.
         */
        get: operations["pointsHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/quests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every active quest and streak with the signed-in user’s progress
         * @description Every active quest in the period holding now (a repeating quest shows its period and when it resets), and every streak with its next deadline. Before onboarding, profile quests show their progress from the profile and none is completed yet: onboarding completes and awards them.
         */
        get: operations["quests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Everything the service holds about the signed-in user
         * @description One JSON document: the identity the account is keyed by, the user and profile, every handle change, handles reserved for you, the whole points ledger (oldest first), quest progress and your board entries with their ranks (GDPR articles 15 and 20).
         */
        get: operations["exportAccount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/leaderboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Leaderboard, one page at a time
         * @description Rank order: more points first, then whoever reached that score first, then user id. Pages follow nextCursor (keyset pagination: no entry is skipped or repeated under ties); a cursor continues only the board it came from (same `period`, season and `team`), elsewhere it is a 400, also for a week’s or month’s walk once that season has ended. With `team`, only fans of that team, ranked among themselves. With `period=week` or `period=month`, the current ISO week’s (from Monday 00:00 UTC) or calendar month’s (UTC) board: points earned in it; `startsAt` and `nextResetAt` say when it began and when it starts afresh. With `season` (a closed season of `period`), that season’s final standings, frozen when it closed, with today’s handle and name (null for deleted accounts); 404 while the season has not closed, and for a season nobody earned points in.
         */
        get: operations["leaderboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/leaderboard/seasons": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Closed seasons with final standings
         * @description The closed ISO weeks or UTC months that have entries, newest first, one page at a time: read each one’s final standings with GET /api/leaderboard?period=…&season=….
         */
        get: operations["leaderboardSeasons"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/leaderboard/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The signed-in user’s rank and neighbours
         * @description Rank order: more points first, then whoever reached that score first, then user id. The caller's entry with up to `radius` entries above and below it (fewer at the top and bottom). With `team`, on that team’s fan board; with `period`, on the current week’s or month’s board. 404 when the caller has no entry there (not onboarded, not a fan of `team`, or no points earned in the season).
         */
        get: operations["leaderboardAroundMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record events from another service, exactly once each
         * @description A batch of 1–100 events, each awarding its type’s points to the fan named by `subject` (created on first sight, not onboarded). Each event is recorded at most once per (client, id): sending an id again answers `duplicate` with the original result, or `rejected` (EVENT_ID_REUSED) if the body differs. A batch is not all-or-nothing: each event is, and `results` says what became of each, in order (unknown type, bad value, a cap reached or an occurredAt out of range reject only that event). The body may be up to 256 KiB.
         */
        post: operations["recordEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/events/reversals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reverse one of your events
         * @description Takes back what the event itself awarded with a compensating ledger entry (nothing is deleted): the balance, the all-time board, the fan’s team boards and the week and month boards the points landed on follow, unless that season is already archived. Quests and streak milestones it completed keep their award. Idempotent: `already_reversed` the second time. 404 when you recorded no event with that id.
         */
        post: operations["reverseEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/definitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the catalog’s definitions
         * @description The newest version of every event type, quest and streak; retired ones only with `includeRetired=true`.
         */
        get: operations["adminListDefinitions"];
        put?: never;
        /**
         * Create a definition
         * @description Version 1 of a new event type, quest or streak, in force on every instance within CATALOG_REFRESH_MS. 409 DEFINITION_CONFLICT when the key exists (also retired: update it instead) or when it names an event type or quest that is not active.
         */
        post: operations["adminCreateDefinition"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/definitions/{kind}/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One definition with its versions, a page at a time
         * @description Its versions, newest first: what was in force when, and who changed it, `limit` at a time; `nextCursor` passed back as `cursor` reads on. A retired definition stays readable here.
         */
        get: operations["adminDefinitionHistory"];
        /**
         * Change a definition
         * @description The next version, the whole definition as sent (a field left out takes its default; PATCH changes some fields), if `expectedVersion` is the newest (else 409 DEFINITION_CONFLICT: read it again). A retired definition comes back. Nothing awarded is taken back or awarded twice: a quest’s tiers already reached keep their award; new targets count from the progress stored.
         */
        put: operations["adminUpdateDefinition"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change some fields of a definition
         * @description The next version, with the fields sent in place of those of `expectedVersion` and every other field as it was (PUT replaces the whole definition). The result is checked as a whole definition: a problem is a 400 naming `definition.<field>`. 409 DEFINITION_CONFLICT when `expectedVersion` is not the newest. A retired definition comes back.
         */
        patch: operations["adminPatchDefinition"];
        trace?: never;
    };
    "/api/admin/definitions/{kind}/{key}/retire": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retire a definition
         * @description A last version, retired: it stops counting and leaves fans’ quest lists; what it awarded stays, and its history stays readable. 409 when another active definition still names it.
         */
        post: operations["adminRetireDefinition"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/fans/{userId}/adjustments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Adjust a fan’s points
         * @description One ledger entry of source `adjustment` moving the balance and the all-time board (season boards count what was earned in them). `id` is your idempotency key for it: sending it again answers `duplicate` and changes nothing. 409 INSUFFICIENT_BALANCE when it would take the balance below 0, 409 POINTS_LIMIT_REACHED past 2,000,000,000.
         */
        post: operations["adminAdjustPoints"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/fans/{userId}/ban": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Ban a fan, or lift the ban
         * @description Banned (`banned: true`): the fan’s events are rejected (FAN_BANNED) and their entries leave every board, every rank and the live updates; their points stay. Unbanned: the entries count again where they stand. Idempotent: a fan already so is answered as they are.
         */
        put: operations["adminSetBan"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/reversals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reverse any client’s event
         * @description What POST /api/events/reversals does for the client that sent the event, for any client (the same compensating entry: reversed once whoever asks).
         */
        post: operations["adminReverseEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit log
         * @description Every change made through the admin API, newest first: who (the admin client), what, when, before and after. `before` (an entry’s id) pages on; `targetKind` with `targetKey` (definition + `quest/daily_reader`, fan + a user id) narrows it to one target; `actor`, `action` and `since`/`until` narrow it further. A deleted fan’s rows name an anonymous id instead.
         */
        get: operations["adminAuditLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/fans": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find fans by handle, subject or id
         * @description `query` is tried as a user id (when it is a UUID), as a subject of `issuer` (the service’s identity provider by default), as a handle (a leading `@` dropped, any letter case) and as the first letters of handles (in handle order). Each fan once, with how it matched. Deleted accounts are never found.
         */
        get: operations["adminFindFans"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/fans/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A fan’s whole story
         * @description From one snapshot: who the fan is and whether banned, the profile, the balance, every board entry with its ranks, quests and streaks now, and the newest ledger entries (with their sources) and events (with their results); page on with /points and /events. 404 for no such fan (or a deleted one).
         */
        get: operations["adminFan"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/fans/{userId}/points": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A fan’s points ledger
         * @description Every entry with its source (quest, event, streak, reversal, adjustment), newest first, cursor pages.
         */
        get: operations["adminFanPoints"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/fans/{userId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The events recorded for a fan
         * @description Every event other services recorded for the fan with its result (points, balance after, quests completed, reversed or not), newest first, cursor pages.
         */
        get: operations["adminFanEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the webhook endpoints
         * @description Every endpoint, retired ones too (with `retiredAt`), oldest first. Secrets are never shown.
         */
        get: operations["adminListWebhookEndpoints"];
        put?: never;
        /**
         * Create a webhook endpoint
         * @description It receives the events of its types committed from now on, each signed per Standard Webhooks with its own secret, which this answer shows once. At most 20 endpoints that are not retired (409 WEBHOOK_ENDPOINT_CONFLICT).
         */
        post: operations["adminCreateWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/webhook-endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Retire a webhook endpoint
         * @description Retires it: nothing more is sent to it, and what was queued for it is dropped; it stays in the list (with `retiredAt`) and in the logs. Again: the same answer. The endpoint of WEBHOOK_URL can be retired once it is unset (an instance starting with it brings it back).
         */
        delete: operations["adminRetireWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint
         * @description Its URL, event types, description, or whether it is enabled; omitted fields are unchanged. A disabled endpoint is paused: its events keep queueing and go out when it is enabled again (those older than WEBHOOK_RETRY_FOR_SECONDS get one attempt). 409 WEBHOOK_ENDPOINT_CONFLICT for a retired endpoint or the one of WEBHOOK_URL.
         */
        patch: operations["adminUpdateWebhookEndpoint"];
        trace?: never;
    };
    "/api/admin/webhook-endpoints/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook endpoint’s secret
         * @description A new secret, shown once. For `overlapSeconds` (default 86400, at most 604800; 0: none) every delivery carries two signatures in `webhook-signature`, one per secret, so the receiver verifies with either while it switches; then only the new one. A second rotation during the overlap drops the oldest secret at once.
         */
        post: operations["adminRotateWebhookEndpointSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/webhook-endpoints/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An endpoint’s delivery log
         * @description Every attempt at every event sent to the endpoint, newest first: status, error, duration, attempt number. `outcome` or `eventId` narrows it; `before` pages on. Kept for LIVE_RETENTION_DAYS, like the events.
         */
        get: operations["adminWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/webhook-endpoints/{id}/redeliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an event to an endpoint again
         * @description An event the endpoint was sent before (delivered, failed or given up) is queued again, due now, as the next attempt: signed as every delivery, after the fan’s earlier events still queued for it. Still queued: answered `already_queued`, nothing changes. 404 if the endpoint was never sent it; 409 for a retired endpoint or an event no longer kept. Past WEBHOOK_RETRY_FOR_SECONDS a failed redelivery is given up at once.
         */
        post: operations["adminRedeliverWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/webhook-endpoints/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event to an endpoint
         * @description POSTs a `webhook_test` event (openapi.json `webhooks`) now, signed with the endpoint’s secret (both during a rotation’s overlap), whatever its event types and also while paused, and answers what the receiver made of it; the attempt is logged, never retried. 409 for a retired endpoint.
         */
        post: operations["adminTestWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The game at a glance
         * @description Over the last hour (a bucket a minute) or day (a bucket every 30 minutes): events recorded per bucket by type, the points they awarded, active fans, webhook delivery outcomes; now: the outbox’s lag, the queues, the endpoints; and the events the answering instance rejected since it started, by code.
         */
        get: operations["adminOverview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/leaderboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A board’s top
         * @description The top `limit` entries (up to 100) of the all-time board (`global`), a team’s fans (`team`, with `team`), or the current ISO week’s or UTC month’s (`week`, `month`), ranked as GET /api/leaderboard ranks them. With `season` (a closed week or month, from GET /api/admin/leaderboard/seasons), its final standings; 404 while the season has not closed, and for a season nobody earned points in. The live all-time and team boards: the adminLeaderboardEvents subscription (asyncapi.json).
         */
        get: operations["adminLeaderboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/leaderboard/seasons": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A period’s seasons, open and closed
         * @description The week’s or month’s season in progress (`open`), and the closed ones that have standings, newest first, one page at a time (as GET /api/leaderboard/seasons lists them): read each with GET /api/admin/leaderboard?board=…&season=….
         */
        get: operations["adminLeaderboardSeasons"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the process is up
         * @description Answers 200 while the process runs, without touching the database. For liveness probes.
         */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: the database answers
         * @description Answers 200 when a query reaches the database, 503 when it does not. For readiness probes and load balancers: send traffic only while it answers 200.
         */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    points_awarded: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The points_awarded event
         * @description Points were added to the user's balance (or taken back: a negative delta). The body is the event message (LiveEvent); receivers ignore fields they do not know.
         */
        post: operations["pointsAwardedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    quest_completed: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The quest_completed event
         * @description The user completed a quest, or reached a further tier of one. The body is the event message (LiveEvent); receivers ignore fields they do not know.
         */
        post: operations["questCompletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    rank_changed: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The rank_changed event
         * @description The user's own rank moved on the whole board or their team's, after their points changed. Users pushed down by someone else's points are not told. The body is the event message (LiveEvent); receivers ignore fields they do not know.
         */
        post: operations["rankChangedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    streak_extended: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The streak_extended event
         * @description A streak of the user grew by one period. The body is the event message (LiveEvent); receivers ignore fields they do not know.
         */
        post: operations["streakExtendedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    streak_lost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The streak_lost event
         * @description A streak of the user ended: a period passed without its activity. The body is the event message (LiveEvent); receivers ignore fields they do not know.
         */
        post: operations["streakLostWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    account_deleted: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The account_deleted event
         * @description An account was deleted (its other events went with it): erase what you hold of this user. Webhooks only. The body is the event message (LiveEvent); receivers ignore fields they do not know.
         */
        post: operations["accountDeletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    webhook_test: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The webhook_test event
         * @description An admin tested this endpoint: answer 2xx once the signature verifies. Sent whatever the endpoint’s event types; never retried. The body is the event message (LiveEvent); receivers ignore fields they do not know.
         */
        post: operations["webhookTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        EventInput: {
            /** @description Your idempotency key for this event: sending the same id again records nothing twice */
            id: string;
            /** @description The fan’s `sub` at the shared identity provider */
            subject: string;
            /** @description An event type of the catalog */
            type: string;
            /** @description A whole number from 1 to the type’s maxValue (default 1); any other number rejects this event (INVALID_VALUE) */
            value?: number;
            /**
             * Format: date-time
             * @description When it happened (default: when received); at most EVENT_MAX_AGE_HOURS (default 24) ago and 5 minutes ahead
             */
            occurredAt?: string;
        };
        /** @description An event type, quest or streak (docs/CATALOG.md). `kind` and `key` identify it for good: award keys carry them, so a key never changes meaning. */
        Definition: {
            /** @constant */
            kind: "event_type";
            /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
            key: string;
            title: string;
            /** @default  */
            description: string;
            /** @description Points per unit of `value` (an event’s value defaults to 1). */
            points: number;
            /**
             * @description The largest value one event may carry; a larger one is rejected.
             * @default 100
             */
            maxValue: number;
            /**
             * @description Units (the sum of values) one fan may record per UTC day / ISO week (UTC); an event that would pass a cap is rejected whole.
             * @default {}
             */
            caps: {
                day?: number;
                week?: number;
            };
        } | {
            /** @constant */
            kind: "quest";
            /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
            key: string;
            title: string;
            /** @default  */
            description: string;
            /** @default 1000 */
            order: number;
            /**
             * @default once
             * @enum {string}
             */
            repeat: "once" | "day" | "week" | "month";
            goal: {
                /** @constant */
                kind: "onboarded";
            } | {
                /** @constant */
                kind: "field_set";
                /** @enum {string} */
                field: "name" | "handle" | "location" | "favoriteSport" | "favoriteTeam" | "favoritePlayer" | "rivalTeam" | "profileUrl";
            } | {
                /** @constant */
                kind: "fields_filled";
            } | {
                /** @constant */
                kind: "events";
                /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                eventType: string;
                /**
                 * @description `count` counts events; `sum` adds their values.
                 * @default count
                 * @enum {string}
                 */
                measure: "count" | "sum";
            } | {
                /** @constant */
                kind: "quests";
                quests: string[];
            };
            /** @description Targets in increasing order; reaching each awards its points once per period. */
            tiers: {
                target: number;
                points: number;
            }[];
        } | {
            /** @constant */
            kind: "streak";
            /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
            key: string;
            title: string;
            /** @default  */
            description: string;
            /** @default 1000 */
            order: number;
            /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
            eventType: string;
            /**
             * @description A streak counts consecutive UTC days or ISO weeks with a qualifying event.
             * @enum {string}
             */
            period: "day" | "week";
            /** @default [] */
            milestones: {
                length: number;
                points: number;
            }[];
        };
        /** @description Fields of the definition’s kind to change (not `kind` or `key`), at least one. */
        DefinitionPatch: {
            title?: string;
            description?: string;
            /** @description Points per unit of `value` (an event’s value defaults to 1). */
            points?: number;
            maxValue?: number;
            caps?: {
                day?: number;
                week?: number;
            };
            order?: number;
            /** @enum {string} */
            repeat?: "once" | "day" | "week" | "month";
            goal?: {
                /** @constant */
                kind: "onboarded";
            } | {
                /** @constant */
                kind: "field_set";
                /** @enum {string} */
                field: "name" | "handle" | "location" | "favoriteSport" | "favoriteTeam" | "favoritePlayer" | "rivalTeam" | "profileUrl";
            } | {
                /** @constant */
                kind: "fields_filled";
            } | {
                /** @constant */
                kind: "events";
                /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                eventType: string;
                /**
                 * @description `count` counts events; `sum` adds their values.
                 * @default count
                 * @enum {string}
                 */
                measure: "count" | "sum";
            } | {
                /** @constant */
                kind: "quests";
                quests: string[];
            };
            /** @description Targets in increasing order; reaching each awards its points once per period. */
            tiers?: {
                target: number;
                points: number;
            }[];
            /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
            eventType?: string;
            /**
             * @description A streak counts consecutive UTC days or ISO weeks with a qualifying event.
             * @enum {string}
             */
            period?: "day" | "week";
            milestones?: {
                length: number;
                points: number;
            }[];
        };
        User: {
            /** Format: uuid */
            id: string;
            name: string | null;
            handle: string | null;
            location: string | null;
            favoriteSport: string | null;
            favoriteTeam: string | null;
            favoritePlayer: string | null;
            rivalTeam: string | null;
            /** Format: uri */
            profileUrl: string | null;
            /** @description Points balance: the sum of the ledger */
            points: number;
            onboardedAt: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            updatedAt: string;
        };
        AccountDeletion: {
            /** @constant */
            deleted: true;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            deletedAt: string;
        };
        Onboarding: {
            user: components["schemas"]["User"];
            updatedProfile: components["schemas"]["UpdatedProfile"];
            leaderboardEntry: components["schemas"]["LeaderboardEntry"];
            pointsHistory: components["schemas"]["PointsHistory"];
            questSync: components["schemas"]["QuestSync"];
        };
        UpdatedProfile: {
            name: string | null;
            handle: string | null;
            location: string | null;
            favoriteSport: string | null;
            favoriteTeam: string | null;
            favoritePlayer: string | null;
            rivalTeam: string | null;
            /** Format: uri */
            profileUrl: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            updatedAt: string;
        };
        LeaderboardEntry: {
            /** Format: uuid */
            userId: string;
            handle: string | null;
            name: string | null;
            /** Format: uri */
            profileUrl: string | null;
            points: number;
            /** @description 1-based: more points first, then whoever reached that score first, then user id */
            rank: number;
        };
        PointsHistory: {
            balance: number;
            /** @description Newest first, at most 20 */
            entries: components["schemas"]["LedgerEntry"][];
        };
        LedgerEntry: {
            /** @description Opaque entry id */
            id: string;
            delta: number;
            reason: string;
            questId: string | null;
            source: components["schemas"]["CreditSource"];
            balanceAfter: number;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            createdAt: string;
        };
        /** @description What earned (or took back) these points */
        CreditSource: {
            /** @constant */
            kind: "quest";
            questId: string;
            /** @description The period of a repeating quest; null for a one-time quest */
            period: string | null;
            tier: number;
        } | {
            /** @constant */
            kind: "event";
            type: string;
            /** @description The service that sent the event */
            clientId: string;
            /** @description The sender’s id of the event */
            eventId: string;
        } | {
            /** @constant */
            kind: "streak";
            streakId: string;
            length: number;
        } | {
            /** @constant */
            kind: "reversal";
            type: string;
            clientId: string;
            /** @description The event reversed */
            eventId: string;
        } | {
            /** @constant */
            kind: "adjustment";
            /** @description The admin client that made it */
            by: string;
            note: string;
        };
        QuestSync: {
            pointsAwarded: number;
            /** @description Quests this call completed */
            completed: components["schemas"]["QuestProgress"][];
            /** @description Every active quest */
            quests: components["schemas"]["QuestProgress"][];
        };
        QuestProgress: {
            id: string;
            title: string;
            description: string;
            /** @description What the next tier awards (the last tier’s once all are reached) */
            points: number;
            progress: number;
            /** @description The next tier’s target */
            target: number;
            /**
             * @description completed once every tier is reached
             * @enum {string}
             */
            status: "in_progress" | "completed";
            completedAt: string | null;
            /** @description A repeating quest’s period (2026-11-25, 2026-W48, 2026-11: UTC day, ISO week, month); null for a one-time quest */
            period: string | null;
            /** @description When a repeating quest starts afresh; null for a one-time quest */
            resetsAt: string | null;
            tiersReached: number;
            /** @description Each tier’s target and points, in order */
            tiers: {
                target: number;
                points: number;
            }[];
        };
        PointsHistoryPage: {
            /** @description Newest first */
            entries: components["schemas"]["LedgerEntry"][];
            /** @description Pass as `cursor` for the next page; null on the last page */
            nextCursor: string | null;
        };
        QuestList: {
            /** @description Every active quest in the period holding now, with the caller’s progress, in display order */
            quests: components["schemas"]["QuestProgress"][];
            /** @description Every active streak */
            streaks: components["schemas"]["Streak"][];
        };
        Streak: {
            id: string;
            title: string;
            description: string;
            /**
             * @description Counted in UTC days or ISO weeks
             * @enum {string}
             */
            period: "day" | "week";
            /** @description Consecutive periods with a qualifying event; 0 once broken */
            current: number;
            best: number;
            /** @description The streak breaks unless a qualifying event happens before this; null when none */
            nextDeadline: string | null;
            countedThisPeriod: boolean;
            milestones: {
                length: number;
                points: number;
            }[];
        };
        AccountExport: {
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            exportedAt: string;
            /** @description The identity provider and subject the account is keyed by */
            identity: {
                issuer: string;
                subject: string;
            };
            user: components["schemas"]["User"];
            /** @description Every change, oldest first */
            handleHistory: components["schemas"]["HandleChange"][];
            /** @description Handles you gave up, reserved for you (lower-cased) until then */
            handleReservations: {
                handle: string;
                /**
                 * Format: date-time
                 * @description ISO-8601 timestamp in UTC
                 */
                reservedUntil: string;
            }[];
            /** @description Every points entry ever recorded for you */
            pointsLedger: {
                balance: number;
                /** @description The whole ledger, oldest first */
                entries: components["schemas"]["LedgerEntry"][];
            };
            quests: components["schemas"]["QuestProgress"][];
            streaks: components["schemas"]["Streak"][];
            /** @description Every event other services recorded for you, oldest first */
            activity: {
                clientId: string;
                eventId: string;
                type: string;
                value: number;
                /**
                 * Format: date-time
                 * @description ISO-8601 timestamp in UTC
                 */
                occurredAt: string;
                points: number;
                /**
                 * Format: date-time
                 * @description ISO-8601 timestamp in UTC
                 */
                recordedAt: string;
                reversedAt: string | null;
            }[];
            /** @description Your entry on each board you are on, with its rank now */
            boards: components["schemas"]["BoardStanding"][];
        };
        HandleChange: {
            /** @description null when the first handle was set */
            oldHandle: string | null;
            newHandle: string;
            /**
             * @description first: the first handle; change: another handle (starts the cooldown); recase: the same handle in other letter case
             * @enum {string}
             */
            kind: "first" | "change" | "recase";
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            changedAt: string;
        };
        BoardStanding: {
            /** @enum {string} */
            period: "all" | "week" | "month";
            /** @description The season (2026-W47, 2026-11); null for the all-time board */
            season: string | null;
            points: number;
            rank: number;
        };
        LeaderboardPage: {
            /** @enum {string} */
            period: "all" | "week" | "month";
            /** @description The season shown (2026-W47, 2026-11); null for the all-time board */
            season: string | null;
            /** @description When the season began; null for all-time */
            startsAt: string | null;
            /** @description When this period starts afresh (the next season); null for all-time */
            nextResetAt: string | null;
            /** @description In rank order */
            entries: components["schemas"]["BoardPageEntry"][];
            /** @description Pass as `cursor` for the next page; null on the last page */
            nextCursor: string | null;
        };
        BoardPageEntry: {
            /** @description null only in a closed season’s standings, for a deleted account */
            userId: string | null;
            handle: string | null;
            name: string | null;
            profileUrl: string | null;
            points: number;
            /** @description 1-based: more points first, then whoever reached that score first, then user id */
            rank: number;
        };
        LeaderboardSeasons: {
            /** @enum {string} */
            period: "week" | "month";
            /** @description Newest first */
            entries: components["schemas"]["ClosedSeason"][];
            /** @description Pass as `cursor` for the next page; null on the last page */
            nextCursor: string | null;
        };
        ClosedSeason: {
            /** @description 2026-W47 or 2026-11: pass as `season` */
            season: string;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            startsAt: string;
            /**
             * Format: date-time
             * @description When it closed (exclusive end)
             */
            endsAt: string;
        };
        LeaderboardAroundMe: {
            /** @enum {string} */
            period: "all" | "week" | "month";
            /** @description The season shown (2026-W47, 2026-11); null for the all-time board */
            season: string | null;
            /** @description When the season began; null for all-time */
            startsAt: string | null;
            /** @description When this period starts afresh (the next season); null for all-time */
            nextResetAt: string | null;
            entry: components["schemas"]["LeaderboardEntry"];
            /** @description Up to `radius` entries ranked just above, in rank order */
            above: components["schemas"]["LeaderboardEntry"][];
            /** @description Up to `radius` entries ranked just below, in rank order */
            below: components["schemas"]["LeaderboardEntry"][];
        };
        RecordEvents: {
            /** @description One per event, in the order sent */
            results: components["schemas"]["EventResult"][];
        };
        EventResult: {
            id: string;
            /** @constant */
            status: "recorded";
            /** @description What the event itself earned (its type’s points × value) */
            points: number;
            /** @description The fan’s balance after the event and what it completed */
            balance: number;
            questsCompleted: components["schemas"]["CompletedQuest"][];
            /** @description Whether the event has since been reversed */
            reversed: boolean;
        } | {
            id: string;
            /** @constant */
            status: "duplicate";
            /** @description What the event itself earned (its type’s points × value) */
            points: number;
            /** @description The fan’s balance after the event and what it completed */
            balance: number;
            questsCompleted: components["schemas"]["CompletedQuest"][];
            /** @description Whether the event has since been reversed */
            reversed: boolean;
        } | {
            id: string;
            /** @constant */
            status: "rejected";
            error: {
                /** @enum {string} */
                code: "UNKNOWN_EVENT_TYPE" | "INVALID_VALUE" | "OCCURRED_AT_OUT_OF_RANGE" | "CAP_REACHED" | "EVENT_ID_REUSED" | "FAN_BANNED" | "UNKNOWN_SUBJECT" | "NEW_SUBJECT_LIMIT" | "POINTS_LIMIT_REACHED" | "UNAVAILABLE" | "INTERNAL";
                message: string;
            };
        };
        CompletedQuest: {
            id: string;
            period: string | null;
            tier: number;
            points: number;
        };
        Reversal: {
            id: string;
            /**
             * @description already_reversed: an earlier call reversed it; nothing changed
             * @enum {string}
             */
            status: "reversed" | "already_reversed";
            /** @description The points taken back (negative), or 0 */
            points: number;
            /** @description The fan’s balance now */
            balance: number;
        };
        DefinitionVersion: {
            /**
             * @description event_type, quest or streak
             * @enum {string}
             */
            kind: "event_type" | "quest" | "streak";
            key: string;
            version: number;
            retired: boolean;
            definition: {
                /** @constant */
                kind: "event_type";
                /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                key: string;
                title: string;
                /** @default  */
                description: string;
                /** @description Points per unit of `value` (an event’s value defaults to 1). */
                points: number;
                /**
                 * @description The largest value one event may carry; a larger one is rejected.
                 * @default 100
                 */
                maxValue: number;
                /**
                 * @description Units (the sum of values) one fan may record per UTC day / ISO week (UTC); an event that would pass a cap is rejected whole.
                 * @default {}
                 */
                caps: {
                    day?: number;
                    week?: number;
                };
            } | {
                /** @constant */
                kind: "quest";
                /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                key: string;
                title: string;
                /** @default  */
                description: string;
                /** @default 1000 */
                order: number;
                /**
                 * @default once
                 * @enum {string}
                 */
                repeat: "once" | "day" | "week" | "month";
                goal: {
                    /** @constant */
                    kind: "onboarded";
                } | {
                    /** @constant */
                    kind: "field_set";
                    /** @enum {string} */
                    field: "name" | "handle" | "location" | "favoriteSport" | "favoriteTeam" | "favoritePlayer" | "rivalTeam" | "profileUrl";
                } | {
                    /** @constant */
                    kind: "fields_filled";
                } | {
                    /** @constant */
                    kind: "events";
                    /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                    eventType: string;
                    /**
                     * @description `count` counts events; `sum` adds their values.
                     * @default count
                     * @enum {string}
                     */
                    measure: "count" | "sum";
                } | {
                    /** @constant */
                    kind: "quests";
                    quests: string[];
                };
                /** @description Targets in increasing order; reaching each awards its points once per period. */
                tiers: {
                    target: number;
                    points: number;
                }[];
            } | {
                /** @constant */
                kind: "streak";
                /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                key: string;
                title: string;
                /** @default  */
                description: string;
                /** @default 1000 */
                order: number;
                /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                eventType: string;
                /**
                 * @description A streak counts consecutive UTC days or ISO weeks with a qualifying event.
                 * @enum {string}
                 */
                period: "day" | "week";
                /** @default [] */
                milestones: {
                    length: number;
                    points: number;
                }[];
            };
            /** @description The admin client that made this version */
            changedBy: string;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            changedAt: string;
        };
        Adjustment: {
            id: string;
            /** @enum {string} */
            status: "adjusted" | "duplicate";
            points: number;
            /** @description The fan’s balance now */
            balance: number;
        };
        Ban: {
            userId: string;
            banned: boolean;
            bannedAt: string | null;
        };
        AuditEntry: {
            id: string;
            /** @description The admin client that made the change */
            actor: string;
            /** @description definition.create|update|retire, fan.adjust, fan.ban, fan.unban, event.reverse, … */
            action: string;
            targetKind: string;
            targetKey: string;
            before: unknown;
            after: unknown;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            at: string;
        };
        FanMatch: {
            /** Format: uuid */
            id: string;
            /** @description The identity provider the fan signs in with */
            issuer: string;
            /** @description The fan’s `sub` there */
            subject: string;
            handle: string | null;
            name: string | null;
            /** @description The balance */
            points: number;
            onboardedAt: string | null;
            /** @description Since when the fan is banned; null if not */
            bannedAt: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            createdAt: string;
            /** @description How the query found this fan: id, subject, handle, or a handle’s first letters */
            matchedBy: ("id" | "subject" | "handle" | "handle_prefix")[];
        };
        FanStory: {
            fan: components["schemas"]["FanSummary"];
            /** @description The eight profile fields */
            profile: {
                name: string | null;
                handle: string | null;
                location: string | null;
                favoriteSport: string | null;
                favoriteTeam: string | null;
                favoritePlayer: string | null;
                rivalTeam: string | null;
                profileUrl: string | null;
            };
            /** @description Every board the fan has an entry on */
            boards: components["schemas"]["FanBoard"][];
            /** @description Every active quest, now */
            quests: components["schemas"]["QuestProgress"][];
            streaks: components["schemas"]["Streak"][];
            /** @description The newest ledger entries, with their sources */
            ledger: components["schemas"]["FanLedgerPage"];
            /** @description The newest events recorded for the fan */
            events: components["schemas"]["FanEventsPage"];
        };
        FanSummary: {
            /** Format: uuid */
            id: string;
            /** @description The identity provider the fan signs in with */
            issuer: string;
            /** @description The fan’s `sub` there */
            subject: string;
            handle: string | null;
            name: string | null;
            /** @description The balance */
            points: number;
            onboardedAt: string | null;
            /** @description Since when the fan is banned; null if not */
            bannedAt: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            createdAt: string;
        };
        FanBoard: {
            /** @enum {string} */
            period: "all" | "week" | "month";
            /** @description 2026-W47, 2026-11; null for all-time */
            season: string | null;
            points: number;
            /** @description Banned: on no board and in no rank */
            hidden: boolean;
            /** @description On the whole board; null when hidden */
            rank: number | null;
            /** @description Among the fans of their team; null without a team, or hidden */
            teamRank: number | null;
        };
        FanLedgerPage: {
            entries: components["schemas"]["LedgerEntry"][];
            /** @description Pass as `before` for more */
            nextCursor: string | null;
        };
        FanEvent: {
            /** @description The service that sent it */
            clientId: string;
            /** @description The sender’s id of it */
            eventId: string;
            type: string;
            value: number;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            occurredAt: string;
            /** @description What the event itself earned */
            points: number;
            /** @description The balance after it and what it completed */
            balance: number;
            questsCompleted: components["schemas"]["CompletedQuest"][];
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            recordedAt: string;
            reversedAt: string | null;
        };
        FanEventsPage: {
            entries: components["schemas"]["FanEvent"][];
            /** @description Pass as `before` for more */
            nextCursor: string | null;
        };
        WebhookEndpointList: {
            endpoints: components["schemas"]["WebhookEndpoint"][];
        };
        WebhookEndpoint: {
            /** Format: uuid */
            id: string;
            url: string;
            description: string | null;
            /** @description The event types it receives; empty: every type */
            eventTypes: ("quest_completed" | "points_awarded" | "rank_changed" | "streak_extended" | "streak_lost" | "account_deleted")[];
            /** @description false: paused: events queue for it and go out when it is enabled again */
            enabled: boolean;
            /**
             * @description `config`: the endpoint of WEBHOOK_URL and WEBHOOK_SECRET, changed there (409 here); `admin`: made with this API
             * @enum {string}
             */
            source: "admin" | "config";
            /** @description During a rotation’s overlap: until when deliveries are also signed with the previous secret; null otherwise */
            previousSecretExpiresAt: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            updatedAt: string;
            /** @description When it was retired; null while active */
            retiredAt: string | null;
        };
        WebhookEndpointWithSecret: {
            endpoint: components["schemas"]["WebhookEndpoint"];
            /**
             * @description The signing secret (`whsec_` + base64), shown this once: keep it where the receiver verifies signatures
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
        };
        WebhookDeliveryPage: {
            entries: components["schemas"]["WebhookDelivery"][];
            /** @description Pass as `before` for more */
            nextCursor: string | null;
        };
        WebhookDelivery: {
            /** @description The log entry’s id */
            id: string;
            /** @description The event’s id: the `webhook-id` it was sent with */
            eventId: string;
            /** @description points_awarded, …, webhook_test; null on entries older than this field */
            eventType: string | null;
            /** @description Which attempt at this event this was, from 1 */
            attempt: number;
            /**
             * @description delivered: a 2xx; failed: retried later; gave_up: not retried (past the retry window, or a test event)
             * @enum {string}
             */
            outcome: "delivered" | "failed" | "gave_up";
            /** @description The receiver’s status; null if none */
            statusCode: number | null;
            /** @description Why it failed: `HTTP 500`, `ECONNREFUSED`, `timeout`, …; null when delivered */
            error: string | null;
            durationMs: number;
            /**
             * Format: date-time
             * @description ISO-8601 timestamp in UTC
             */
            at: string;
        };
        Redelivery: {
            eventId: string;
            /** @enum {string} */
            status: "queued" | "already_queued";
            /** @description The attempt it will be */
            attempt: number;
            /**
             * Format: date-time
             * @description When it is due
             */
            nextAt: string;
        };
        AdminOverview: {
            /** @enum {string} */
            window: "hour" | "day";
            /**
             * Format: date-time
             * @description The window’s start (the database’s clock)
             */
            from: string;
            /**
             * Format: date-time
             * @description The window’s end: now
             */
            to: string;
            /** @description Each bucket’s length: 60 (hour), 1800 (day) */
            bucketSeconds: number;
            /** @description Each bucket’s start, oldest first */
            buckets: string[];
            /** @description Events recorded per bucket, by type (most first) */
            events: {
                type: string;
                counts: number[];
            }[];
            /** @description Points the events awarded per bucket (reversed ones left out) */
            points: number[];
            /** @description Fans with an event recorded in the window */
            activeFans: number;
            /** @description Events the answering instance rejected since it started, by code, most first (ups_events_total; rejected events are not stored) */
            rejections: {
                /**
                 * Format: date-time
                 * @description When the answering instance started
                 */
                since: string;
                byCode: {
                    code: string;
                    count: number;
                }[];
            };
            /** @description Age of the oldest event still to be delivered to a webhook (0: none) */
            outboxLagSeconds: number;
            /** @description Delivery attempts in the window by outcome; queues and endpoints now */
            webhooks: {
                delivered: number;
                /** @description Attempts that failed and are tried again */
                failed: number;
                gaveUp: number;
                /** @description Deliveries waiting in the endpoints’ queues now */
                queued: number;
                endpointsEnabled: number;
                endpointsDisabled: number;
            };
        };
        AdminLeaderboard: {
            /** @enum {string} */
            period: "all" | "week" | "month";
            /** @description The season shown (2026-W47, 2026-11); null for the all-time board */
            season: string | null;
            /** @description When the season began; null for all-time */
            startsAt: string | null;
            /** @description When this period starts afresh (the next season); null for all-time */
            nextResetAt: string | null;
            /** @description In rank order */
            entries: components["schemas"]["BoardPageEntry"][];
            /** @enum {string} */
            board: "global" | "team" | "week" | "month";
            /** @description The team of a team’s board, as asked */
            team: string | null;
        };
        AdminLeaderboardSeasons: {
            /** @enum {string} */
            period: "week" | "month";
            /** @description Newest first */
            entries: components["schemas"]["ClosedSeason"][];
            /** @description Pass as `cursor` for the next page; null on the last page */
            nextCursor: string | null;
            /** @description The season in progress (its board: GET /api/admin/leaderboard without season) */
            open: components["schemas"]["ClosedSeason"];
        };
        /**
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "VALIDATION_FAILED",
         *         "message": "favouriteTeam: Unknown field \"favouriteTeam\"",
         *         "issues": [
         *           {
         *             "path": "favouriteTeam",
         *             "message": "Unknown field \"favouriteTeam\""
         *           }
         *         ]
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "UNAUTHENTICATED",
         *         "message": "A bearer token is required: send \"Authorization: Bearer <token>\""
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "FAN_TOKEN_REQUIRED",
         *         "message": "This operation acts for a signed-in fan; it cannot be called with a service token (client \"checkin-service\")"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "INSUFFICIENT_SCOPE",
         *         "message": "This operation needs the \"admin\" scope; the token of client \"checkin-service\" has \"events:write\""
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "CLIENT_NOT_ALLOWED",
         *         "message": "The client \"quiz-service\" is not among the services this deployment trusts (SERVICE_CLIENT_IDS)"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "NOT_FOUND",
         *         "message": "You are not on the leaderboard yet: onboard first (POST /api/user/profile)"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "METHOD_NOT_ALLOWED",
         *         "message": "DELETE is not supported on /api/user/profile: use POST"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "HANDLE_TAKEN",
         *         "message": "The handle \"ann\" is taken"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "HANDLE_CHANGE_COOLDOWN",
         *         "message": "You changed your handle recently: the next change is allowed from 2026-12-23T19:00:00.000Z",
         *         "issues": [
         *           {
         *             "path": "handle",
         *             "message": "Handle changes are on cooldown"
         *           }
         *         ],
         *         "retryAt": "2026-12-23T19:00:00.000Z"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "INSUFFICIENT_BALANCE",
         *         "message": "Reversing \"checkin-42\" would take the fan's balance below 0: adjust it first"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "POINTS_LIMIT_REACHED",
         *         "message": "An adjustment of 500000 would take the fan's points past 2,000,000,000, the most a balance or a board entry may hold"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "DEFINITION_CONFLICT",
         *         "message": "quest \"weekly_checkins\" is at version 3, not 2: read it again and resend"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "WEBHOOK_ENDPOINT_CONFLICT",
         *         "message": "The webhook endpoint 5b1f0c1e-9d8a-4c3e-a7b2-2f6e8d4c1a90 is retired: create a new one"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "PAYLOAD_TOO_LARGE",
         *         "message": "The request body is larger than 16 KiB"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "UNSUPPORTED_MEDIA_TYPE",
         *         "message": "Content-Type \"text/plain\" is not supported: send application/json"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "RATE_LIMITED",
         *         "message": "Too many requests for this user; slow down"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "INTERNAL",
         *         "message": "Internal server error"
         *       }
         *     }
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "UNAVAILABLE",
         *         "message": "The database is unavailable right now; retry shortly"
         *       }
         *     }
         */
        ErrorEnvelope: {
            /** @constant */
            success: false;
            error: {
                /** @enum {string} */
                code: "VALIDATION_FAILED" | "UNAUTHENTICATED" | "FAN_TOKEN_REQUIRED" | "INSUFFICIENT_SCOPE" | "CLIENT_NOT_ALLOWED" | "NOT_FOUND" | "METHOD_NOT_ALLOWED" | "HANDLE_TAKEN" | "HANDLE_CHANGE_COOLDOWN" | "INSUFFICIENT_BALANCE" | "POINTS_LIMIT_REACHED" | "DEFINITION_CONFLICT" | "WEBHOOK_ENDPOINT_CONFLICT" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "RATE_LIMITED" | "INTERNAL" | "UNAVAILABLE";
                message: string;
                /** @description Validation problems, one per field */
                issues?: {
                    path: string;
                    message: string;
                }[];
                /**
                 * Format: date-time
                 * @description When the same request can succeed (HANDLE_CHANGE_COOLDOWN: when the next handle change is allowed), ISO-8601 UTC
                 */
                retryAt?: string;
            };
        };
        /** @description Any of the eight profile fields. Omitted: unchanged. null or an empty string: cleared (a handle can be changed, not cleared). Unknown keys are refused. */
        UpdateUserInput: {
            /** @description Display name, 1–80 characters. null or "" clears it. */
            name?: string | null;
            /** @description Unique handle: 3–30 of A–Z a–z 0–9 _, a leading @ is dropped, unique ignoring case, reserved words refused. Once set it can be changed but not cleared. */
            handle?: string | null;
            /** @description Up to 100 characters. null or "" clears it. */
            location?: string | null;
            /** @description Up to 50 characters. null or "" clears it. */
            favoriteSport?: string | null;
            /** @description Up to 100 characters. null or "" clears it. */
            favoriteTeam?: string | null;
            /** @description Up to 100 characters. null or "" clears it. */
            favoritePlayer?: string | null;
            /** @description Up to 100 characters; may not be the same team as favoriteTeam (compared ignoring case, compatibility forms and invisible characters). null or "" clears it. */
            rivalTeam?: string | null;
            /** @description Absolute https: URL to a public host (not localhost or a private, loopback or link-local IP address), at most 2048 characters; stored in its canonical form (WHATWG URL href, with what RFC 3986 forbids percent-encoded). null or "" clears it. */
            profileUrl?: string | null;
        };
        /** @description Any profile field except rivalTeam (set that with PATCH /api/user), with the same rules as PATCH /api/user. An empty object onboards without changing the profile. */
        OnboardProfileInput: {
            /** @description Display name, 1–80 characters. null or "" clears it. */
            name?: string | null;
            /** @description Unique handle: 3–30 of A–Z a–z 0–9 _, a leading @ is dropped, unique ignoring case, reserved words refused. Once set it can be changed but not cleared. */
            handle?: string | null;
            /** @description Up to 100 characters. null or "" clears it. */
            location?: string | null;
            /** @description Up to 50 characters. null or "" clears it. */
            favoriteSport?: string | null;
            /** @description Up to 100 characters. null or "" clears it. */
            favoriteTeam?: string | null;
            /** @description Up to 100 characters. null or "" clears it. */
            favoritePlayer?: string | null;
            /** @description Absolute https: URL to a public host (not localhost or a private, loopback or link-local IP address), at most 2048 characters; stored in its canonical form (WHATWG URL href, with what RFC 3986 forbids percent-encoded). null or "" clears it. */
            profileUrl?: string | null;
        };
        RecordEventsInput: {
            events: components["schemas"]["EventInput"][];
        };
        ReverseEventInput: {
            /** @description The id you sent the event with */
            id: string;
        };
        AdminCreateDefinitionInput: {
            definition: components["schemas"]["Definition"];
        };
        AdminUpdateDefinitionInput: {
            expectedVersion: number;
            definition: components["schemas"]["Definition"];
        };
        AdminPatchDefinitionInput: {
            expectedVersion: number;
            definition: components["schemas"]["DefinitionPatch"];
        };
        AdminRetireDefinitionInput: {
            expectedVersion: number;
        };
        AdminAdjustPointsInput: {
            /** @description Your idempotency key for this adjustment */
            id: string;
            /** @description Points to add (negative: to take away), not 0 */
            points: number;
            /** @description Why: kept in the audit log */
            reason: string;
        };
        AdminSetBanInput: {
            /** @description true bans the fan, false lifts the ban */
            banned: boolean;
            /** @description Why: kept in the audit log */
            reason: string;
        };
        AdminReverseEventInput: {
            /** @description The client that sent it */
            clientId: string;
            /** @description The event’s id */
            id: string;
            /** @description Why: kept in the audit log */
            reason: string;
        };
        AdminCreateWebhookEndpointInput: {
            /**
             * @description Where events are POSTed: an absolute http or https URL, no credentials, no fragment, at most 2048 characters; on a public address (loopback, private, link-local and metadata addresses are refused, here and at every connection, unless the operator allows the network)
             * @example https://hooks.example.com/fan-events
             */
            url: string;
            /**
             * @description The event types it receives; empty: every type
             * @default []
             */
            eventTypes: ("quest_completed" | "points_awarded" | "rank_changed" | "streak_extended" | "streak_lost" | "account_deleted")[];
            /**
             * @description What it is for, for the people running it (at most 200 characters)
             * @default null
             */
            description: string | null;
        };
        AdminUpdateWebhookEndpointInput: {
            /**
             * @description Where events are POSTed: an absolute http or https URL, no credentials, no fragment, at most 2048 characters; on a public address (loopback, private, link-local and metadata addresses are refused, here and at every connection, unless the operator allows the network)
             * @example https://hooks.example.com/fan-events
             */
            url?: string;
            /** @description The event types it receives; empty: every type */
            eventTypes?: ("quest_completed" | "points_awarded" | "rank_changed" | "streak_extended" | "streak_lost" | "account_deleted")[];
            /** @description What it is for, for the people running it (at most 200 characters) */
            description?: string | null;
            /** @description false pauses it; true resumes it */
            enabled?: boolean;
        };
        AdminRotateWebhookEndpointSecretInput: {
            /**
             * @description How long the previous secret still signs deliveries
             * @default 86400
             */
            overlapSeconds: number;
        };
        AdminRedeliverWebhookInput: {
            /** @description The event’s id (its `webhook-id`) */
            eventId: string;
        };
        AdminTestWebhookEndpointInput: {
            /**
             * @description How long to wait for the receiver’s answer, 1–30 s (default 10, as deliveries)
             * @default 10
             */
            timeoutSeconds: number;
        };
        Health: {
            /** @constant */
            status: "ok";
        };
        Readiness: {
            /** @constant */
            status: "ready";
            /**
             * @description postgres: DATABASE_URL; pglite: the embedded database in DATA_DIR
             * @enum {unknown}
             */
            database: "postgres" | "pglite";
        };
        /** @description Points were added to the user's balance (or taken back: a negative delta). */
        PointsAwardedEvent: {
            /** @description The event id (the outbox id, a decimal string; the webhook-id header and the SSE id) */
            id: string;
            /** @constant */
            type: "points_awarded";
            /**
             * Format: date-time
             * @description When the write that caused it ran
             */
            timestamp: string;
            /**
             * Format: uuid
             * @description Whose event it is: the user id of GET /api/user and of board entries
             */
            userId: string;
            data: {
                /** @description The points added (negative for a reversal or a debit) */
                delta: number;
                /** @description The balance right after this award */
                balance: number;
                questId: string | null;
                source: components["schemas"]["CreditSource"];
            };
        };
        /** @description The user completed a quest, or reached a further tier of one. */
        QuestCompletedEvent: {
            /** @description The event id (the outbox id, a decimal string; the webhook-id header and the SSE id) */
            id: string;
            /** @constant */
            type: "quest_completed";
            /**
             * Format: date-time
             * @description When the write that caused it ran
             */
            timestamp: string;
            /**
             * Format: uuid
             * @description Whose event it is: the user id of GET /api/user and of board entries
             */
            userId: string;
            data: {
                quest: components["schemas"]["QuestProgress"];
                /** @description The tier reached (1 for a one-tier quest) */
                tier: number;
            };
        };
        /** @description The user's own rank moved on the whole board or their team's, after their points changed. Users pushed down by someone else's points are not told. */
        RankChangedEvent: {
            /** @description The event id (the outbox id, a decimal string; the webhook-id header and the SSE id) */
            id: string;
            /** @constant */
            type: "rank_changed";
            /**
             * Format: date-time
             * @description When the write that caused it ran
             */
            timestamp: string;
            /**
             * Format: uuid
             * @description Whose event it is: the user id of GET /api/user and of board entries
             */
            userId: string;
            data: {
                /** @enum {string} */
                board: "global" | "team";
                team: string | null;
                rank: number;
                previousRank: number | null;
            };
        };
        /** @description A streak of the user grew by one period. */
        StreakExtendedEvent: {
            /** @description The event id (the outbox id, a decimal string; the webhook-id header and the SSE id) */
            id: string;
            /** @constant */
            type: "streak_extended";
            /**
             * Format: date-time
             * @description When the write that caused it ran
             */
            timestamp: string;
            /**
             * Format: uuid
             * @description Whose event it is: the user id of GET /api/user and of board entries
             */
            userId: string;
            data: {
                streak: {
                    id: string;
                    title: string;
                    /** @enum {string} */
                    period: "day" | "week";
                };
                current: number;
                best: number;
            };
        };
        /** @description A streak of the user ended: a period passed without its activity. */
        StreakLostEvent: {
            /** @description The event id (the outbox id, a decimal string; the webhook-id header and the SSE id) */
            id: string;
            /** @constant */
            type: "streak_lost";
            /**
             * Format: date-time
             * @description When the write that caused it ran
             */
            timestamp: string;
            /**
             * Format: uuid
             * @description Whose event it is: the user id of GET /api/user and of board entries
             */
            userId: string;
            data: {
                streak: {
                    id: string;
                    title: string;
                    /** @enum {string} */
                    period: "day" | "week";
                };
                current: number;
                best: number;
                /** @description The length of the streak that ended */
                lost: number;
            };
        };
        /** @description An account was deleted (its other events went with it): erase what you hold of this user. Webhooks only. */
        AccountDeletedEvent: {
            /** @description The event id (the outbox id, a decimal string; the webhook-id header and the SSE id) */
            id: string;
            /** @constant */
            type: "account_deleted";
            /**
             * Format: date-time
             * @description When the write that caused it ran
             */
            timestamp: string;
            /**
             * Format: uuid
             * @description Whose event it is: the user id of GET /api/user and of board entries
             */
            userId: string;
            data: {
                /**
                 * Format: uuid
                 * @description The id the deleted account had (the envelope’s userId)
                 */
                userId: string;
            };
        };
        /** @description An admin tested this endpoint: answer 2xx once the signature verifies. Sent whatever the endpoint’s event types; never retried. */
        WebhookTestEvent: {
            /** @description A fresh event id (the webhook-id header) */
            id: string;
            /** @constant */
            type: "webhook_test";
            /**
             * Format: date-time
             * @description When the admin asked for it
             */
            timestamp: string;
            data: {
                /**
                 * Format: uuid
                 * @description The endpoint tested
                 */
                endpointId: string;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    me: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["User"];
                    };
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAN_TOKEN_REQUIRED: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["AccountDeletion"];
                    };
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAN_TOKEN_REQUIRED: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateUserInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["User"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAN_TOKEN_REQUIRED: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    onboardProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OnboardProfileInput"];
            };
        };
        responses: {
            /** @description Already onboarded: fields applied, nothing awarded twice */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Onboarding"];
                    };
                };
            };
            /** @description Onboarded by this call: quests synced and points awarded */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Onboarding"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAN_TOKEN_REQUIRED: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    pointsHistory: {
        parameters: {
            query?: {
                /** @description Entries per page, 1–100 (default 20) */
                limit?: number;
                /** @description nextCursor of the previous page, unchanged; omit for the first page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["PointsHistoryPage"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAN_TOKEN_REQUIRED: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    quests: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["QuestList"];
                    };
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAN_TOKEN_REQUIRED: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    exportAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["AccountExport"];
                    };
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAN_TOKEN_REQUIRED: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    leaderboard: {
        parameters: {
            query?: {
                /** @description Which board: all (all-time, the default), week (the current ISO week, from Monday 00:00 UTC) or month (the current calendar month, UTC): points earned in it */
                period?: "all" | "week" | "month";
                /** @description Entries per page, 1–100 (default 20) */
                limit?: number;
                /** @description nextCursor of the previous page, unchanged; omit for the first page */
                cursor?: string;
                /** @description Only fans whose favoriteTeam is this team (compared ignoring case, compatibility forms and invisible characters, after the same trimming as profile fields); ranks are within the team. */
                team?: string;
                /** @description A closed season of `period` (2026-W47 for week, 2026-11 for month): its final standings */
                season?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["LeaderboardPage"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAN_TOKEN_REQUIRED: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    leaderboardSeasons: {
        parameters: {
            query: {
                /** @description ISO weeks or UTC calendar months */
                period: "week" | "month";
                /** @description Entries per page, 1–100 (default 20) */
                limit?: number;
                /** @description nextCursor of the previous page, unchanged; omit for the first page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["LeaderboardSeasons"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAN_TOKEN_REQUIRED: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    leaderboardAroundMe: {
        parameters: {
            query?: {
                /** @description Which board: all (all-time, the default), week (the current ISO week, from Monday 00:00 UTC) or month (the current calendar month, UTC): points earned in it */
                period?: "all" | "week" | "month";
                /** @description Neighbours to return on each side, 0–25 (default 5) */
                radius?: number;
                /** @description Only fans whose favoriteTeam is this team (compared ignoring case, compatibility forms and invisible characters, after the same trimming as profile fields); ranks are within the team. */
                team?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["LeaderboardAroundMe"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAN_TOKEN_REQUIRED: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    recordEvents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecordEventsInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["RecordEvents"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    reverseEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReverseEventInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Reversal"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminListDefinitions: {
        parameters: {
            query?: {
                /** @description event_type, quest or streak */
                kind?: "event_type" | "quest" | "streak";
                /** @description Also list retired definitions (default false) */
                includeRetired?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: {
                            definitions: components["schemas"]["DefinitionVersion"][];
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminCreateDefinition: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminCreateDefinitionInput"];
            };
        };
        responses: {
            /** @description The definition, at version 1 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["DefinitionVersion"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminDefinitionHistory: {
        parameters: {
            query?: {
                /** @description Entries per page, 1–100 (default 20) */
                limit?: number;
                /** @description nextCursor of the previous page, unchanged; omit for the first page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description event_type, quest or streak */
                kind: "event_type" | "quest" | "streak";
                /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: {
                            /** @description Newest first */
                            versions: components["schemas"]["DefinitionVersion"][];
                            /** @description Pass as `cursor` for the next page; null on the last page */
                            nextCursor: string | null;
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminUpdateDefinition: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description event_type, quest or streak */
                kind: "event_type" | "quest" | "streak";
                /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminUpdateDefinitionInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["DefinitionVersion"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminPatchDefinition: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description event_type, quest or streak */
                kind: "event_type" | "quest" | "streak";
                /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminPatchDefinitionInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["DefinitionVersion"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminRetireDefinition: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description event_type, quest or streak */
                kind: "event_type" | "quest" | "streak";
                /** @description Stable key: 1–64 of a–z, 0–9 and _, starting with a letter. */
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminRetireDefinitionInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["DefinitionVersion"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminAdjustPoints: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The fan’s user id (as webhooks and exports name it) */
                userId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminAdjustPointsInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Adjustment"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminSetBan: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The fan’s user id (as webhooks and exports name it) */
                userId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminSetBanInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Ban"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminReverseEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminReverseEventInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Reversal"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminAuditLog: {
        parameters: {
            query?: {
                /** @description Entries per page, 1–100 (default 50) */
                limit?: number;
                /** @description Entries older than this id */
                before?: string;
                /** @description Only changes of this kind of target (with targetKey) */
                targetKind?: "definition" | "fan" | "webhook_endpoint";
                /** @description Only changes of this target: `quest/daily_reader`, a user id, … */
                targetKey?: string;
                /** @description Only changes made by this admin client */
                actor?: string;
                /** @description Only this action (`fan.ban`), or a family of them (`fan`) */
                action?: string;
                /** @description Only changes made at or after this time */
                since?: string;
                /** @description Only changes made before this time */
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: {
                            entries: components["schemas"]["AuditEntry"][];
                            /** @description Pass as `before` for more */
                            nextCursor: string | null;
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminFindFans: {
        parameters: {
            query: {
                /** @description A user id, a subject, a handle or its first letters */
                query: string;
                /** @description Whose subjects to look in; default the configured issuer */
                issuer?: string;
                /** @description Entries per page, 1–100 (default 20) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: {
                            fans: components["schemas"]["FanMatch"][];
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminFan: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The fan’s user id (as webhooks and exports name it) */
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["FanStory"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminFanPoints: {
        parameters: {
            query?: {
                /** @description Entries per page, 1–100 (default 50) */
                limit?: number;
                /** @description Entries older than this one: the previous page’s nextCursor */
                before?: string;
            };
            header?: never;
            path: {
                /** @description The fan’s user id (as webhooks and exports name it) */
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["FanLedgerPage"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminFanEvents: {
        parameters: {
            query?: {
                /** @description Entries per page, 1–100 (default 50) */
                limit?: number;
                /** @description Entries older than this one: the previous page’s nextCursor */
                before?: string;
            };
            header?: never;
            path: {
                /** @description The fan’s user id (as webhooks and exports name it) */
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["FanEventsPage"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminListWebhookEndpoints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["WebhookEndpointList"];
                    };
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminCreateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminCreateWebhookEndpointInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["WebhookEndpointWithSecret"];
                    };
                };
            };
            /** @description The endpoint and its secret */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["WebhookEndpointWithSecret"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminRetireWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint’s id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["WebhookEndpoint"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminUpdateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint’s id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminUpdateWebhookEndpointInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["WebhookEndpoint"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminRotateWebhookEndpointSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint’s id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminRotateWebhookEndpointSecretInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["WebhookEndpointWithSecret"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Entries per page, 1–100 (default 50) */
                limit?: number;
                /** @description Entries older than this one: the previous page’s nextCursor */
                before?: string;
                /** @description Only attempts with it */
                outcome?: "delivered" | "failed" | "gave_up";
                /** @description Only attempts at this event */
                eventId?: string;
            };
            header?: never;
            path: {
                /** @description The endpoint’s id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["WebhookDeliveryPage"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminRedeliverWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint’s id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminRedeliverWebhookInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Redelivery"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminTestWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint’s id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminTestWebhookEndpointInput"];
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["WebhookDelivery"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HANDLE_TAKEN or HANDLE_CHANGE_COOLDOWN or INSUFFICIENT_BALANCE or POINTS_LIMIT_REACHED or DEFINITION_CONFLICT or WEBHOOK_ENDPOINT_CONFLICT: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminOverview: {
        parameters: {
            query?: {
                /** @description hour (the default) or day */
                window?: "hour" | "day";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["AdminOverview"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminLeaderboard: {
        parameters: {
            query?: {
                /** @description global (the default), team, week or month */
                board?: "global" | "team" | "week" | "month";
                /** @description The team whose fans’ board to read: with board=team only */
                team?: string;
                /** @description A closed season of board week (2026-W47) or month (2026-11): its final standings */
                season?: string;
                /** @description Entries from the top, 1–100 (default 100) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["AdminLeaderboard"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    adminLeaderboardSeasons: {
        parameters: {
            query: {
                /** @description ISO weeks or UTC calendar months */
                period: "week" | "month";
                /** @description Entries per page, 1–100 (default 20) */
                limit?: number;
                /** @description nextCursor of the previous page, unchanged; omit for the first page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["AdminLeaderboardSeasons"];
                    };
                };
            };
            /** @description VALIDATION_FAILED: Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: Unauthorized */
            401: {
                headers: {
                    /** @description Bearer error="invalid_token" (RFC 6750) */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INSUFFICIENT_SCOPE or CLIENT_NOT_ALLOWED: Forbidden */
            403: {
                headers: {
                    /** @description With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: Too many requests */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE: Service unavailable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description UNAVAILABLE: the database is not reachable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    pointsAwardedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id (the body’s `id`): the same on every retry of the event. Delivery is at least once: dedupe on it.
                 * @example 7
                 */
                "webhook-id": string;
                /**
                 * @description When this attempt was signed, in seconds since the epoch. Refuse one far from your clock (Standard Webhooks libraries allow 5 minutes) against replays.
                 * @example 1795651267
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the endpoint’s secret (the base64 after `whsec_`); two while a changed secret overlaps the old one. Any Standard Webhooks library verifies it.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
                /** @description W3C trace context of this delivery’s trace, when the service exports traces (docs/OPERATIONS.md, Traces). */
                traceparent?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PointsAwardedEvent"];
            };
        };
        responses: {
            /** @description Delivered: the event is not sent again. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    questCompletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id (the body’s `id`): the same on every retry of the event. Delivery is at least once: dedupe on it.
                 * @example 7
                 */
                "webhook-id": string;
                /**
                 * @description When this attempt was signed, in seconds since the epoch. Refuse one far from your clock (Standard Webhooks libraries allow 5 minutes) against replays.
                 * @example 1795651267
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the endpoint’s secret (the base64 after `whsec_`); two while a changed secret overlaps the old one. Any Standard Webhooks library verifies it.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
                /** @description W3C trace context of this delivery’s trace, when the service exports traces (docs/OPERATIONS.md, Traces). */
                traceparent?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QuestCompletedEvent"];
            };
        };
        responses: {
            /** @description Delivered: the event is not sent again. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    rankChangedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id (the body’s `id`): the same on every retry of the event. Delivery is at least once: dedupe on it.
                 * @example 7
                 */
                "webhook-id": string;
                /**
                 * @description When this attempt was signed, in seconds since the epoch. Refuse one far from your clock (Standard Webhooks libraries allow 5 minutes) against replays.
                 * @example 1795651267
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the endpoint’s secret (the base64 after `whsec_`); two while a changed secret overlaps the old one. Any Standard Webhooks library verifies it.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
                /** @description W3C trace context of this delivery’s trace, when the service exports traces (docs/OPERATIONS.md, Traces). */
                traceparent?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RankChangedEvent"];
            };
        };
        responses: {
            /** @description Delivered: the event is not sent again. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    streakExtendedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id (the body’s `id`): the same on every retry of the event. Delivery is at least once: dedupe on it.
                 * @example 7
                 */
                "webhook-id": string;
                /**
                 * @description When this attempt was signed, in seconds since the epoch. Refuse one far from your clock (Standard Webhooks libraries allow 5 minutes) against replays.
                 * @example 1795651267
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the endpoint’s secret (the base64 after `whsec_`); two while a changed secret overlaps the old one. Any Standard Webhooks library verifies it.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
                /** @description W3C trace context of this delivery’s trace, when the service exports traces (docs/OPERATIONS.md, Traces). */
                traceparent?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StreakExtendedEvent"];
            };
        };
        responses: {
            /** @description Delivered: the event is not sent again. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    streakLostWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id (the body’s `id`): the same on every retry of the event. Delivery is at least once: dedupe on it.
                 * @example 7
                 */
                "webhook-id": string;
                /**
                 * @description When this attempt was signed, in seconds since the epoch. Refuse one far from your clock (Standard Webhooks libraries allow 5 minutes) against replays.
                 * @example 1795651267
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the endpoint’s secret (the base64 after `whsec_`); two while a changed secret overlaps the old one. Any Standard Webhooks library verifies it.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
                /** @description W3C trace context of this delivery’s trace, when the service exports traces (docs/OPERATIONS.md, Traces). */
                traceparent?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StreakLostEvent"];
            };
        };
        responses: {
            /** @description Delivered: the event is not sent again. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    accountDeletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id (the body’s `id`): the same on every retry of the event. Delivery is at least once: dedupe on it.
                 * @example 7
                 */
                "webhook-id": string;
                /**
                 * @description When this attempt was signed, in seconds since the epoch. Refuse one far from your clock (Standard Webhooks libraries allow 5 minutes) against replays.
                 * @example 1795651267
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the endpoint’s secret (the base64 after `whsec_`); two while a changed secret overlaps the old one. Any Standard Webhooks library verifies it.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
                /** @description W3C trace context of this delivery’s trace, when the service exports traces (docs/OPERATIONS.md, Traces). */
                traceparent?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccountDeletedEvent"];
            };
        };
        responses: {
            /** @description Delivered: the event is not sent again. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookTestWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id (the body’s `id`): the same on every retry of the event. Delivery is at least once: dedupe on it.
                 * @example 7
                 */
                "webhook-id": string;
                /**
                 * @description When this attempt was signed, in seconds since the epoch. Refuse one far from your clock (Standard Webhooks libraries allow 5 minutes) against replays.
                 * @example 1795651267
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the endpoint’s secret (the base64 after `whsec_`); two while a changed secret overlaps the old one. Any Standard Webhooks library verifies it.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
                /** @description W3C trace context of this delivery’s trace, when the service exports traces (docs/OPERATIONS.md, Traces). */
                traceparent?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookTestEvent"];
            };
        };
        responses: {
            /** @description Delivered: the event is not sent again. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most 1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next event waits meanwhile. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
