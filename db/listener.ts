import pg from 'pg';

export interface NotificationHandlers {
  /** One NOTIFY payload, in the order the listening session received them. */
  onNotification(payload: string): void;
  /**
   * The listening connection was lost and is back. Notifications sent while
   * it was down are gone: listeners catch up from the outbox.
   */
  onReconnect?(): void;
  /** The connection failed (it is being re-opened). */
  onError?(error: Error): void;
}

/** Stops listening and closes the connection. */
export type Unlisten = () => Promise<void>;

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

/**
 * LISTEN on one dedicated PostgreSQL connection, outside the pool: a pooled
 * connection is shared by transactions, and a transaction pooler (PgBouncer in
 * transaction mode) cannot hold a LISTEN at all, so the connection string may
 * differ from the pool's (DATABASE_LISTEN_URL). A lost connection is re-opened
 * with backoff, and `onReconnect` is told. Resolves once the first LISTEN is in place.
 *
 * Exactly one path owns each retry: until connect() and LISTEN have both
 * succeeded, a failure only rejects `open()` (its caller retries, and the
 * half-open connection is ended); from then on the connection's own 'error' or
 * 'end', whichever comes first, schedules the retry. Only one connection is
 * ever open or opening, and after unlisten none is opened again.
 */
export async function listenPostgres(
  connectionString: string,
  channel: string,
  handlers: NotificationHandlers,
): Promise<Unlisten> {
  let closed = false;
  /** The connection being opened or listening. */
  let client: pg.Client | undefined;
  let retryMs = RETRY_MIN_MS;
  let timer: NodeJS.Timeout | undefined;
  /** A retry in progress, so unlisten can wait for it to settle. */
  let retrying: Promise<void> | undefined;

  const open = async (): Promise<void> => {
    const next = new pg.Client({
      connectionString,
      keepAlive: true,
      connectionTimeoutMillis: 5000,
    });
    let listening = false;
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotification(message.payload ?? '');
    });
    const lost = (error?: Error) => {
      if (!listening || client !== next) return;
      client = undefined;
      next.end().catch(() => {});
      if (closed) return;
      handlers.onError?.(error ?? new Error('The LISTEN connection ended'));
      schedule();
    };
    // Attached at once: pg emits 'error' while connecting too, and an
    // unhandled 'error' would end the process. Ignored until listening.
    next.on('error', lost);
    next.on('end', () => lost());
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (client !== next) throw new Error('Stopped listening while connecting');
    } catch (error) {
      if (client === next) client = undefined;
      await next.end().catch(() => {});
      throw error;
    }
    listening = true;
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (closed) return;
      retrying = open().then(
        () => {
          retryMs = RETRY_MIN_MS;
          if (!closed) handlers.onReconnect?.();
        },
        (error: Error) => {
          if (closed) return;
          handlers.onError?.(error);
          retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
          schedule();
        },
      );
    }, retryMs);
    timer.unref();
  };

  await open();
  return async () => {
    closed = true;
    clearTimeout(timer);
    const current = client;
    client = undefined;
    await current?.end().catch(() => {});
    await retrying;
  };
}
