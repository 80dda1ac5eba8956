import type { OutboxEvent } from '../../db/queries/events.js';

/**
 * An outbox event as subscribers and webhook receivers see it (the LiveEvent
 * schema in routers/live-schemas.ts): `data` is the type's payload.
 */
export interface LiveEventMessage {
  id: string;
  type: string;
  /** When the write that caused it ran (ISO-8601 UTC). */
  timestamp: string;
  data: unknown;
}

export function toLiveEventMessage(event: OutboxEvent): LiveEventMessage {
  return {
    id: event.id,
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    data: event.payload,
  };
}
