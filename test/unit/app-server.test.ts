import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { appServer, isClass } from '../../src/http/app-server.js';

describe('appServer: requests born with the Express app prototypes', () => {
  let server: Server | undefined;
  afterEach(async () => {
    const open = server;
    server = undefined;
    if (open) await new Promise((resolve) => open.close(resolve));
  });

  async function serve(
    app: Express,
    seen: unknown[],
    base?: Parameters<typeof appServer>[2],
  ): Promise<string> {
    server = appServer(
      app,
      (req, res) => {
        // Before Express's app.handle sets anything.
        seen.push({
          request: Object.getPrototypeOf(req) === app.request,
          response: Object.getPrototypeOf(res) === app.response,
          node: req instanceof IncomingMessage && res instanceof ServerResponse,
        });
        app(req, res);
      },
      base,
    );
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  }

  it('hands the listener requests and responses whose prototypes are the app’s, over keep-alive', async () => {
    const app = express();
    app.set('trust proxy', false);
    app.post('/echo', express.json(), (req, res) => {
      res.setHeader('X-Seen', 'yes');
      res.status(201).json({ body: req.body as unknown, ip: req.ip, app: req.app === app });
    });
    const seen: unknown[] = [];
    const url = await serve(app, seen);
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n: i }),
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('x-seen')).toBe('yes');
      expect(await response.json()).toEqual({ body: { n: i }, ip: '127.0.0.1', app: true });
    }
    expect(seen).toEqual(Array(3).fill({ request: true, response: true, node: true }));
  });

  it('answers what the app does not route with Express’s own 404', async () => {
    const app = express();
    const seen: unknown[] = [];
    const url = await serve(app, seen);
    const response = await fetch(`${url}/nowhere`);
    expect(response.status).toBe(404);
    expect(seen).toEqual([{ request: true, response: true, node: true }]);
  });

  it('falls back to Node’s own classes when the constructors are ES classes, and Express still answers', async () => {
    class Incoming extends IncomingMessage {}
    class Outgoing extends ServerResponse {}
    const app = express();
    app.get('/ip', (req, res) => {
      res.json({ ip: req.ip, proto: Object.getPrototypeOf(req) === app.request });
    });
    const seen: unknown[] = [];
    const url = await serve(app, seen, { IncomingMessage: Incoming, ServerResponse: Outgoing });
    const response = await fetch(`${url}/ip`);
    expect(response.status).toBe(200);
    // Express's app.handle set the prototypes itself, after the listener saw Node's.
    expect(await response.json()).toEqual({ ip: '127.0.0.1', proto: true });
    expect(seen).toEqual([{ request: false, response: false, node: true }]);
  });

  it('builds requests with the app’s prototypes on this Node: its request and response constructors are plain functions', () => {
    expect(isClass(IncomingMessage)).toBe(false);
    expect(isClass(ServerResponse)).toBe(false);
    expect(isClass(class Later {})).toBe(true);
    expect(isClass(function earlier() {})).toBe(false);
  });
});
