import {
  createServer,
  IncomingMessage,
  ServerResponse,
  type RequestListener,
  type Server,
} from 'node:http';
import type { Express } from 'express';

/**
 * A node:http server (not listening) for the Express app whose requests and
 * responses are born with the app's prototypes (`app.request`,
 * `app.response`), so the `Object.setPrototypeOf` Express's `app.handle`
 * does on every request finds them set and costs nothing. Why that pays:
 * docs/decisions/0016-app-server-prototypes.md.
 *
 * The constructors run Node's own on the new object, as a subclass written
 * the pre-class way does, so whatever Node's constructors set up is set up.
 * (`Reflect.construct` with the app's prototype would too, but V8 then builds
 * new hidden classes for every object again.) Node 20 and 22 define both as
 * plain functions; should a later Node make them classes, which cannot be
 * called that way, this falls back to Node's own and the prototypes are set
 * per request as before.
 */
export function appServer(
  app: Express,
  /** The app itself; the tests pass one that looks at each request first. */
  listener: RequestListener = app,
  /** Node's own; the tests pass classes to see the fallback. */
  base: { IncomingMessage: unknown; ServerResponse: unknown } = { IncomingMessage, ServerResponse },
): Server {
  if (isClass(base.IncomingMessage) || isClass(base.ServerResponse)) return createServer(listener);
  return createServer(
    {
      IncomingMessage: bornWith(base.IncomingMessage, app.request) as typeof IncomingMessage,
      ServerResponse: bornWith(base.ServerResponse, app.response) as typeof ServerResponse,
    },
    listener,
  );
}

/** A constructor that runs `base` on the new object, whose instances have `prototype`. */
function bornWith(base: unknown, prototype: object): unknown {
  const construct = base as (this: object, ...args: unknown[]) => void;
  function Born(this: object, ...args: unknown[]): void {
    construct.apply(this, args);
  }
  Born.prototype = prototype;
  return Born;
}

/** True for a constructor written as an ES class, which cannot be called without `new`. */
export function isClass(constructor: unknown): boolean {
  return /^class\b/.test(Function.prototype.toString.call(constructor));
}
