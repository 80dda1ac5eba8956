/**
 * A message many streams send is serialised once per instance, not once per
 * connection (docs/LIVE.md, Fan-out): the subscriptions' output check
 * freezes each message it passes (routers/live-schemas.ts), and a frozen
 * message's JSON text is kept here, while the message lives, for every
 * stream and both transports (tRPC's `sse.stringify`, src/trpc/init.ts; the
 * WebSocket encoder, src/http/ws-face.ts). A frozen object cannot change, so
 * its text cannot go stale; anything else is stringified as it comes.
 */
const texts = new WeakMap<object, string>();

/** Whether `value` is an object whose JSON text is made once (a frozen one). */
export function isSealed(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.isFrozen(value);
}

/** `JSON.stringify(value)`, made once per frozen object. */
export function jsonOnce(value: unknown): string {
  if (!isSealed(value)) return JSON.stringify(value);
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}
