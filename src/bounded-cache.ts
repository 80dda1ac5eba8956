/**
 * A small in-process cache with a hard entry limit and per-entry expiry, for
 * values that are safe to reuse for a while (verified tokens, user ids). When
 * full, the oldest entry goes first; an expired entry is never returned.
 */
export interface BoundedCache<V> {
  get(key: string): V | undefined;
  /** Stores `value` until `expiresAtMs` (epoch ms); a time in the past stores nothing. */
  set(key: string, value: V, expiresAtMs: number): void;
  delete(key: string): void;
  readonly size: number;
}

export function createBoundedCache<V>(options: {
  maxEntries: number;
  now?: () => number;
}): BoundedCache<V> {
  const { maxEntries } = options;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: V; expiresAtMs: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAtMs <= now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key, value, expiresAtMs) {
      if (maxEntries <= 0 || expiresAtMs <= now()) return;
      // Re-inserting moves the key to the back of Map's insertion order.
      entries.delete(key);
      entries.set(key, { value, expiresAtMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
      }
    },
    delete(key) {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
