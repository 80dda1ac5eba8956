import type { OutboxEvent } from '../../db/queries/events.js';

/**
 * An outbox event as subscribers and webhook receivers see it (the LiveEvent
 * schema in routers/live-schemas.ts). The envelope says which event, when and
 * whose; `data` is the type's payload, what happened.
 */
export interface LiveEventMessage {
  id: string;
  type: string;
  /** When the write that caused it ran (ISO-8601 UTC). */
  timestamp: string;
  /**
   * Whose event it is: the user id every read API shows (`GET /api/user`
   * `id`, board entries' `userId`), never the identity's subject
   * (docs/LIVE.md, "Whom an event is about").
   */
  userId: string;
  data: unknown;
}

/** The message of each event decoded from a notification, made once for all its streams. */
const messages = new WeakMap<OutboxEvent, Readonly<LiveEventMessage>>();

/**
 * The event's message: one frozen object per event object, so the streams
 * that carry one notification's event share its message (and its output
 * check and serialisation, src/live/json-once.ts).
 */
export function toLiveEventMessage(event: OutboxEvent): Readonly<LiveEventMessage> {
  let message = messages.get(event);
  if (message === undefined) {
    message = Object.freeze({
      id: event.id,
      type: event.type,
      timestamp: event.createdAt.toISOString(),
      userId: event.userId ?? deletedUserId(event),
      data: event.payload,
    });
    messages.set(event, message);
  }
  return message;
}

/**
 * `account_deleted` is the one event whose row belongs to no user (the
 * account is gone); the id it had travels in its payload.
 */
function deletedUserId(event: OutboxEvent): string {
  const payload = event.payload as { userId?: unknown } | null;
  if (typeof payload?.userId !== 'string') {
    throw new Error(`Outbox event ${event.id} (${event.type}) names no user`);
  }
  return payload.userId;
}
