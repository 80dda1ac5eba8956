import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which network addresses the service sends to or links to (docs/SECURITY.md,
 * Hardening IV): only public unicast addresses, unless an operator allows a
 * network. One rule for a fan's profileUrl and for webhook targets.
 */

/** Networks an operator allows besides public unicast space (WEBHOOK_ALLOWED_NETWORKS). */
export type AllowedNetworks = readonly (readonly [ipaddr.IPv4 | ipaddr.IPv6, number])[];

export const NO_ALLOWED_NETWORKS: AllowedNetworks = Object.freeze([]);

/**
 * Parses `10.0.0.0/8`, `fd00::/8`, `127.0.0.1` (one address), or undefined
 * when `entry` is none of those.
 */
export function parseNetwork(entry: string): AllowedNetworks[number] | undefined {
  try {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    if (isIP(entry) === 0) return undefined;
    const address = ipaddr.parse(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return undefined;
  }
}

/**
 * The address as ipaddr.js reads it, IPv4-mapped IPv6 (`::ffff:127.0.0.1`)
 * as the IPv4 address it is.
 */
function normalised(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  return ipaddr.process(address);
}

/** ipaddr.js's range names in words, with their article, for messages. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT',
  private: 'a private',
  reserved: 'a reserved',
  uniqueLocal: 'a unique-local',
  ipv4Mapped: 'an IPv4-mapped',
  rfc6145: 'an IPv4-translated',
  rfc6052: 'a NAT64',
  '6to4': 'a 6to4',
  teredo: 'a Teredo',
};

/**
 * Why the service may not connect to `address` (an IP address in any form
 * `net.isIP` accepts), or undefined when it may: every address outside public
 * unicast space (loopback, private, link-local and so cloud metadata
 * 169.254.169.254, unique-local, carrier-grade NAT, unspecified 0.0.0.0,
 * multicast, reserved, and IPv6 forms that embed an IPv4 address) is refused
 * unless one of `allowed` holds it. `name` is how the message names it.
 */
export function addressProblem(
  address: string,
  allowed: AllowedNetworks,
  name: string = address,
): string | undefined {
  const parsed = normalised(address);
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  for (const [network, bits] of allowed) {
    if (network.kind() === parsed.kind() && parsed.match(network, bits)) return undefined;
  }
  const shown = parsed.toString() === name ? name : `${name} (${parsed.toString()})`;
  return `${shown} is ${RANGE_NAMES[range] ?? `a ${range}`} address`;
}

/**
 * The IP address a URL's hostname (WHATWG-parsed, so decimal, hex and octal
 * IPv4 spellings are already dotted quads) names, or undefined for a name.
 * `localhost` and `*.localhost` name loopback (RFC 6761): 127.0.0.1.
 */
export function hostAddress(hostname: string): string | undefined {
  const host = hostname.replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return '127.0.0.1';
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(literal) === 0 ? undefined : literal;
}

/** Why a URL's host may not be sent to or linked to, judged from the URL alone (see addressProblem). */
export function hostProblem(hostname: string, allowed: AllowedNetworks): string | undefined {
  const address = hostAddress(hostname);
  return address === undefined
    ? undefined
    : addressProblem(address, allowed, hostname.replace(/^\[|\]$/g, ''));
}
