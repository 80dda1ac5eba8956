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
 */
export async function listenPostgres(
  connectionString: string,
  channel: string,
  handlers: NotificationHandlers,
): Promise<Unlisten> {
  let closed = false;
  let client: pg.Client | undefined;
  let retryMs = RETRY_MIN_MS;
  let timer: NodeJS.Timeout | undefined;

  const open = async (): Promise<void> => {
    const next = new pg.Client({
      connectionString,
      keepAlive: true,
      connectionTimeoutMillis: 5000,
    });
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotification(message.payload ?? '');
    });
    const lost = (error?: Error) => {
      if (closed || client !== next) return;
      client = undefined;
      handlers.onError?.(error ?? new Error('The LISTEN connection ended'));
      next.end().catch(() => {});
      schedule();
    };
    next.on('error', lost);
    next.on('end', () => lost());
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      if (client === next) client = undefined;
      next.end().catch(() => {});
      throw error;
    }
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      open().then(
        () => {
          retryMs = RETRY_MIN_MS;
          handlers.onReconnect?.();
        },
        (error: Error) => {
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
  };
}
