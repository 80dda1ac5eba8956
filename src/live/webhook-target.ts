import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { addressProblem, type AllowedNetworks } from '../domain/network.js';

/**
 * Where webhook deliveries may connect (docs/SECURITY.md, Hardening IV): the
 * address checked is the address connected to. A name is resolved once per
 * connection, every address it resolves to is checked (one refused address
 * refuses the name: a rebinding answer may mix a public and a private one),
 * and the socket connects only to the addresses checked, through the
 * resolver's answer handed straight to `net.connect`. An IP literal (which
 * `net.connect` does not resolve) is checked as it is. A refusal happens
 * before any connection, so the delivery log shows the same for a closed
 * port as for an open one: nothing about the target's ports leaks.
 */

/** A delivery the target rules refused before connecting. */
export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
  readonly code = 'WEBHOOK_TARGET_REFUSED';
}

/** `dns.lookup`'s shape: tests pass a resolver of their own (a name that resolves to 127.0.0.1). */
export type Resolver = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, callback) =>
  dnsLookup(hostname, { all: true, order: 'verbatim' }, callback);

/** Why the service may not connect to `hostname` at `address` (one it resolved to, or itself). */
function refusal(hostname: string, address: string, allowed: AllowedNetworks): string | undefined {
  const problem = addressProblem(address, allowed, hostname);
  return (
    problem &&
    `Refused before connecting: ${problem}, which WEBHOOK_ALLOWED_NETWORKS does not allow`
  );
}

/** A `net.connect` lookup that answers only with checked addresses. */
function checkedLookup(allowed: AllowedNetworks, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const wanted = addresses.filter((a) => !options.family || a.family === options.family);
      if (wanted.length === 0) {
        const empty = Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
        return callback(empty, '', 0);
      }
      for (const { address } of addresses) {
        const problem = refusal(hostname, address, allowed);
        if (problem) return callback(new TargetRefusedError(problem), '', 0);
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, wanted);
      const [first] = wanted as [LookupAddress];
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * The dispatcher every delivery goes through: undici's own connector, given
 * the checked lookup, behind a check of IP literals.
 */
export function webhookDispatcher(
  allowed: AllowedNetworks,
  options: { resolve?: Resolver; connectTimeoutMs?: number } = {},
): Agent {
  const connect = buildConnector({
    lookup: checkedLookup(allowed, options.resolve ?? systemResolver),
    ...(options.connectTimeoutMs !== undefined && { timeout: options.connectTimeoutMs }),
  });
  return new Agent({
    connect(target, callback) {
      const problem =
        isIP(target.hostname) === 0
          ? undefined
          : refusal(target.hostname, target.hostname, allowed);
      if (problem) return callback(new TargetRefusedError(problem), null);
      return connect(target, callback);
    },
  });
}
