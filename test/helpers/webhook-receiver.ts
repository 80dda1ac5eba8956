import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What an app whose webhooks go to receivers on 127.0.0.1 needs: loopback is
 * refused as a target unless the operator allows it (WEBHOOK_ALLOWED_NETWORKS).
 */
export const LOOPBACK_RECEIVERS = { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1' } as const;

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A webhook receiver on 127.0.0.1: answers `status()` and records every request. */
export class Receiver {
  readonly requests: Received[] = [];
  /** Every body as it arrived, before `gate` let the answer go. */
  readonly arrivals: string[] = [];
  server: Server | undefined;
  status = () => 200;
  /** Holds the answer to a request until it resolves (a slow receiver). */
  gate: (body: string) => Promise<void> = async () => {};

  async listen(port = 0): Promise<number> {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        this.arrivals.push(body);
        void this.gate(body).then(() => {
          const status = this.status();
          this.requests.push({ headers: req.headers, body, status });
          res.writeHead(status).end();
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks`;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The events acknowledged with a 2xx, in the order they arrived. */
  acknowledged() {
    return this.requests
      .filter((r) => r.status < 300)
      .map((r) => ({ id: r.headers['webhook-id'] as string, event: JSON.parse(r.body) }));
  }
}
