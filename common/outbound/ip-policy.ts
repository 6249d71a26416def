// Which IP addresses (and ports) the service may call (CONTRACT "Outbound requests"). Everything
// that is not plainly public is refused: loopback, private, link-local, CGNAT, unique-local,
// multicast, documentation, reserved, and IPv6 forms that embed such an IPv4 address (IPv4-mapped,
// IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16). OUTBOUND_ALLOW_CIDRS opens chosen ranges;
// an entry may name the ports it opens (`127.0.0.0/8:40000-65535`). An entry without ports opens
// every port except those of the service's own components (Kafka, ClickHouse, Redis, the API:
// service-ports.ts), so allowing 127.0.0.0/8 for a local receiver does not let a webhook or an
// image URL reach ClickHouse's HTTP interface on the same host.
import { BlockList, isIP } from 'node:net';

const deniedV4: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including broadcast 255.255.255.255
];

// IPv6: only global unicast (2000::/3) may pass at all; these are carved out of it.
const deniedV6: [string, number][] = [
  ['2001::', 23], // IETF protocol assignments (Teredo 2001::/32, ORCHID, …)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
];

export type AddressVerdict =
  | { allowed: true; address: string; family: 4 | 6 }
  | {
      allowed: false;
      address: string;
      reason: string;
      /** Inside an allowed range, refused because the port is one of the service's own components. */
      ownPort?: true;
    };

export interface AddressPolicy {
  /** Classifies one resolved address (no brackets) for a connection to `port`. */
  check(address: string, port: number): AddressVerdict;
  /**
   * True when an OUTBOUND_ALLOW_CIDRS entry opens this address and port (http is then accepted for
   * live keys).
   */
  explicitlyAllowed(address: string, port: number): boolean;
}

export class InvalidCidrError extends Error {}

export interface AddressPolicyOptions {
  /**
   * Ports an allow entry without its own port range still refuses: the service's own components
   * (service-ports.ts). Public addresses are not affected.
   */
  servicePorts?: Iterable<number>;
}

interface AllowEntry {
  text: string;
  range: BlockList;
  /** Inclusive; undefined: every port except the service's own. */
  ports?: [number, number];
}

/**
 * Builds the policy; `allowEntries` are the OUTBOUND_ALLOW_CIDRS entries: a CIDR (`127.0.0.0/8`,
 * `fd00::/8`) or a single address, optionally followed by `:port` or `:low-high` (after the prefix
 * length, so IPv6 stays unambiguous: `::1/128:8080`).
 */
export function createAddressPolicy(
  allowEntries: readonly string[] = [],
  options: AddressPolicyOptions = {},
): AddressPolicy {
  const entries = allowEntries.map(parseAllowEntry);
  const servicePorts = new Set(options.servicePorts ?? []);
  const denyV4 = new BlockList();
  for (const [net, prefix] of deniedV4) denyV4.addSubnet(net, prefix, 'ipv4');
  const denyV6 = new BlockList();
  for (const [net, prefix] of deniedV6) denyV6.addSubnet(net, prefix, 'ipv6');

  /** The entries whose range holds the address (an IPv6 form of an IPv4 address counts as it). */
  function matching(address: string): AllowEntry[] {
    const family = isIP(address);
    if (family === 0) return [];
    const embedded = family === 6 ? embeddedIPv4(address) : undefined;
    return entries.filter(
      ({ range }) =>
        range.check(address, family === 4 ? 'ipv4' : 'ipv6') ||
        (embedded !== undefined && range.check(embedded, 'ipv4')),
    );
  }

  const opensPort = (entry: AllowEntry, port: number) =>
    entry.ports ? port >= entry.ports[0] && port <= entry.ports[1] : !servicePorts.has(port);

  function explicitlyAllowed(address: string, port: number): boolean {
    return matching(address).some((entry) => opensPort(entry, port));
  }

  function check(address: string, port: number): AddressVerdict {
    const family = isIP(address);
    if (family === 0) return { allowed: false, address, reason: 'not an IP address' };
    const inRanges = matching(address);
    if (inRanges.some((entry) => opensPort(entry, port)))
      return { allowed: true, address, family: family as 4 | 6 };
    const verdict = publicVerdict(address, family as 4 | 6);
    if (verdict.allowed || !inRanges.length) return verdict;
    // Inside an allowed range, but not for this port: say so in the (log-only) reason.
    return {
      ...verdict,
      ...(servicePorts.has(port) ? { ownPort: true as const } : {}),
      reason: `${verdict.reason}; port ${port} is not open in OUTBOUND_ALLOW_CIDRS ${inRanges
        .map((entry) => entry.text)
        .join(', ')}${servicePorts.has(port) ? " (a port of the service's own components)" : ''}`,
    };
  }

  function publicVerdict(address: string, family: 4 | 6): AddressVerdict {
    if (family === 4) {
      return denyV4.check(address, 'ipv4')
        ? { allowed: false, address, reason: 'non-public IPv4 address' }
        : { allowed: true, address, family: 4 };
    }
    const embedded = embeddedIPv4(address);
    if (embedded !== undefined) {
      if (denyV4.check(embedded, 'ipv4'))
        return { allowed: false, address, reason: `IPv6 form of non-public ${embedded}` };
      // IPv4-mapped/compatible addresses are never global IPv6; NAT64 and 6to4 are, if the v4 is public.
      if (isMappedOrCompatible(address))
        return { allowed: false, address, reason: 'IPv4-mapped/compatible IPv6 address' };
    }
    const first = firstHextet(address);
    if (first < 0x2000 || first > 0x3fff) {
      if (!(embedded !== undefined && isNat64(address)))
        return { allowed: false, address, reason: 'non-global IPv6 address' };
    }
    if (denyV6.check(address, 'ipv6')) return { allowed: false, address, reason: 'reserved IPv6 address' };
    return { allowed: true, address, family: 6 };
  }

  return { check, explicitlyAllowed };
}

/** One OUTBOUND_ALLOW_CIDRS entry: `<address>[/<prefix>][:<port>|:<low>-<high>]`. */
function parseAllowEntry(text: string): AllowEntry {
  // Ports only after a prefix length, or after a dotted IPv4 address: "::1:80" is an IPv6 address.
  const withPorts = /^(.+\/\d+|\d+\.\d+\.\d+\.\d+):(\d+)(?:-(\d+))?$/.exec(text);
  const cidr = withPorts ? withPorts[1]! : text;
  const range = new BlockList();
  addCidr(range, cidr, text);
  if (!withPorts) return { text, range };
  const low = Number(withPorts[2]);
  const high = withPorts[3] === undefined ? low : Number(withPorts[3]);
  if (low < 1 || high > 65535 || low > high)
    throw new InvalidCidrError(`port range must be within 1-65535, low to high: "${text}"`);
  return { text, range, ports: [low, high] };
}

function addCidr(list: BlockList, cidr: string, entry: string): void {
  const [net, prefixText, extra] = cidr.split('/');
  const family = isIP(net ?? '');
  const prefix = prefixText === undefined ? (family === 4 ? 32 : 128) : Number(prefixText);
  if (extra !== undefined || family === 0 || !Number.isInteger(prefix) || prefix < 0)
    throw new InvalidCidrError(`not a CIDR: "${entry}"`);
  if (prefix > (family === 4 ? 32 : 128)) throw new InvalidCidrError(`prefix too long: "${entry}"`);
  list.addSubnet(net!, prefix, family === 4 ? 'ipv4' : 'ipv6');
}

/** Expands an IPv6 address to its 8 hextets. */
export function ipv6Hextets(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two hextets.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const zeros = new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}

function firstHextet(address: string): number {
  return ipv6Hextets(address)[0]!;
}

function toV4(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

function isMappedOrCompatible(address: string): boolean {
  const h = ipv6Hextets(address);
  return h.slice(0, 5).every((x) => x === 0) && (h[5] === 0xffff || h[5] === 0);
}

function isNat64(address: string): boolean {
  const h = ipv6Hextets(address);
  return h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0);
}

/** The IPv4 address an IPv6 address embeds (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIPv4(address: string): string | undefined {
  const h = ipv6Hextets(address);
  if (isMappedOrCompatible(address)) {
    if (h[5] === 0 && h[6] === 0) return undefined; // :: and ::1 are not IPv4-compatible forms
    return toV4(h[6]!, h[7]!);
  }
  if (isNat64(address)) return toV4(h[6]!, h[7]!);
  if (h[0] === 0x2002) return toV4(h[1]!, h[2]!);
  return undefined;
}
