/**
 * Named examples of what an admin changes: definitions (one created,
 * changed, patched, then retired), point adjustments, bans, reversals of any
 * client's events, and the audit log that records them.
 */
import { ALICE, BEN, ok, type Examples } from './openapi-examples-common.js';

/** The admin examples' definition: created, changed, then retired (in that order). */
const cupFinal = {
  kind: 'event_type',
  key: 'cup_final_checkin',
  title: 'Cup final check-in',
  description: 'At the stadium for the cup final.',
  points: 40,
  maxValue: 1,
  caps: { day: 1 },
};
const ADMIN_TIME = '2026-11-24T10:05:00.000Z';
const cupFinalVersion = (version: number, points: number, retired = false) => ({
  kind: 'event_type',
  key: 'cup_final_checkin',
  version,
  retired,
  definition: { ...cupFinal, points },
  changedBy: 'ops-console',
  changedAt: ADMIN_TIME,
});

/** Request bodies of the admin changes, by operation id. */
export const ADMIN_CHANGE_REQUEST_EXAMPLES: Record<string, Examples> = {
  adminCreateDefinition: {
    eventType: {
      summary: 'A check-in worth 40 points for the cup final, once a day',
      value: { definition: cupFinal },
    },
  },
  adminUpdateDefinition: {
    morePoints: {
      summary: 'Make it worth 50 (the version read was 1)',
      value: { expectedVersion: 1, definition: { ...cupFinal, points: 50 } },
    },
  },
  adminPatchDefinition: {
    points: {
      summary: 'Make it worth 60, everything else as it is (the version read was 2)',
      value: { expectedVersion: 2, definition: { points: 60 } },
    },
  },
  adminRetireDefinition: {
    retire: {
      summary: 'Retire it after the final (the version read was 3)',
      value: { expectedVersion: 3 },
    },
  },
  adminAdjustPoints: {
    goodwill: {
      summary: 'Make up for a check-in the gate scanner missed',
      value: { id: 'ticket-44120-goodwill', points: 10, reason: 'Gate 4 scanner was down' },
    },
  },
  adminSetBan: {
    ban: {
      summary: 'Ban a scripted account',
      value: { banned: true, reason: 'Scripted check-ins' },
    },
  },
  adminReverseEvent: {
    reverse: {
      summary: 'Take back a check-in another service recorded by mistake',
      value: { clientId: 'checkin-service', id: 'checkin-8813', reason: 'Duplicate scan' },
    },
  },
};

/** Success responses of the admin changes, by operation id and status. */
export const ADMIN_CHANGE_RESPONSE_EXAMPLES: Record<string, Record<string, Examples>> = {
  adminListDefinitions: {
    '200': ok('definitions', 'The newest version of each definition', {
      definitions: [cupFinalVersion(2, 50)],
    }),
  },
  adminDefinitionHistory: {
    '200': ok('versions', 'Its versions, newest first: the last page', {
      versions: [
        cupFinalVersion(4, 60, true),
        cupFinalVersion(3, 60),
        cupFinalVersion(2, 50),
        cupFinalVersion(1, 40),
      ],
      nextCursor: null,
    }),
  },
  adminCreateDefinition: { '201': ok('created', 'Version 1', cupFinalVersion(1, 40)) },
  adminUpdateDefinition: { '200': ok('updated', 'Version 2', cupFinalVersion(2, 50)) },
  adminPatchDefinition: { '200': ok('patched', 'Version 3', cupFinalVersion(3, 60)) },
  adminRetireDefinition: {
    '200': ok('retired', 'Version 4, retired', cupFinalVersion(4, 60, true)),
  },
  adminAdjustPoints: {
    '200': ok('adjusted', '10 points added', {
      id: 'ticket-44120-goodwill',
      status: 'adjusted',
      points: 10,
      balance: 285,
    }),
  },
  adminSetBan: {
    '200': ok('banned', 'Banned: off every board', {
      userId: BEN,
      banned: true,
      bannedAt: ADMIN_TIME,
    }),
  },
  adminReverseEvent: {
    '200': ok('reversed', 'The check-in’s 10 points taken back', {
      id: 'checkin-8813',
      status: 'reversed',
      points: -10,
      balance: 240,
    }),
  },
  adminAuditLog: {
    '200': ok('audit', 'The newest changes', {
      entries: [
        {
          id: '118',
          actor: 'ops-console',
          action: 'fan.adjust',
          targetKind: 'fan',
          targetKey: ALICE,
          before: { balance: 275 },
          after: {
            balance: 285,
            points: 10,
            id: 'ticket-44120-goodwill',
            reason: 'Gate 4 scanner was down',
          },
          at: ADMIN_TIME,
        },
        {
          id: '117',
          actor: 'ops-console',
          action: 'definition.update',
          targetKind: 'definition',
          targetKey: 'event_type/cup_final_checkin',
          before: cupFinalVersion(1, 40),
          after: cupFinalVersion(2, 50),
          at: ADMIN_TIME,
        },
      ],
      nextCursor: '117',
    }),
  },
};
