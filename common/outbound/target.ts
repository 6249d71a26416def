// Turns a URL into a checked connection target: parse, refuse what can never be called (scheme,
// credentials), resolve the host name ONCE, within the call's deadline, and check every address it
// resolves to for the URL's port. The caller connects to `address` (see client.ts), so a second DNS
// answer cannot redirect the connection.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { OutboundRefusedError } from './errors.ts';
import type { AddressPolicy } from './ip-policy.ts';

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** The system resolver (getaddrinfo), every address in the order the system returns them. */
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface CheckedTarget {
  url: URL;
  /** Host name without brackets, as sent in Host and SNI. */
  hostname: string;
  /** The URL's port, or the scheme's default. */
  port: number;
  /** The checked address the connection must go to. */
  address: string;
  family: 4 | 6;
  /** Every resolved address is opened, for this port, by OUTBOUND_ALLOW_CIDRS. */
  explicitlyAllowed: boolean;
}

export const MAX_URL_LENGTH = 2048;

/** Parses and checks a URL's form only (no DNS): scheme http(s), no credentials, sane length. */
export function parseOutboundUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH)
    throw new OutboundRefusedError('invalid_url', `URL longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefusedError('invalid_url', 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new OutboundRefusedError('unsupported_scheme', 'only http and https URLs can be called');
  if (url.username || url.password)
    throw new OutboundRefusedError('credentials_in_url', 'URLs must not carry credentials');
  if (!url.hostname) throw new OutboundRefusedError('invalid_url', 'URL has no host');
  return url;
}

export interface CheckOptions {
  /**
   * Longest the DNS answer may take (the call's deadline, so a slow resolver of one integrator
   * cannot hold a delivery or image slot past it). getaddrinfo cannot be cancelled: a lookup
   * abandoned at the deadline finishes in the background, its answer unused.
   */
  timeoutMs?: number;
}

/** Resolves and checks `raw`; throws OutboundRefusedError when any resolved address is refused. */
export async function checkTarget(
  raw: string | URL,
  policy: AddressPolicy,
  resolver: Resolver = systemResolver,
  options: CheckOptions = {},
): Promise<CheckedTarget> {
  const url = typeof raw === 'string' ? parseOutboundUrl(raw) : raw;
  // WHATWG URL already normalised 2130706433, 0x7f.1, 017700000001 … to dotted IPv4.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  let addresses: { address: string; family: number }[];
  if (isIP(hostname)) {
    addresses = [{ address: hostname, family: isIP(hostname) }];
  } else {
    try {
      addresses = await withDeadline(resolver(hostname), options.timeoutMs);
    } catch (error) {
      throw new OutboundRefusedError(
        'unresolvable_host',
        error instanceof DnsTimeout
          ? `host ${hostname} did not resolve within ${options.timeoutMs} ms`
          : `host ${hostname} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    if (!addresses.length)
      throw new OutboundRefusedError('unresolvable_host', `host ${hostname} has no address`);
  }
  // One refused address refuses the host: a name that mixes public and private answers is a trap.
  for (const { address } of addresses) {
    const verdict = policy.check(address, port);
    if (!verdict.allowed)
      throw new OutboundRefusedError(
        'forbidden_address',
        // Where a private range is allowed (local stacks, tests), say why this port is not.
        verdict.ownPort
          ? `${hostname} is not a public address, and port ${port} is one of the service's own ` +
              'components there; outbound calls to it are refused'
          : `${hostname} is not a public address; outbound calls to it are refused`,
        `${hostname} resolves to ${address} (port ${port}): ${verdict.reason}`,
      );
  }
  const first = addresses[0]!;
  return {
    url,
    hostname,
    port,
    address: first.address,
    family: isIP(first.address) as 4 | 6,
    explicitlyAllowed: addresses.every(({ address }) => policy.explicitlyAllowed(address, port)),
  };
}

class DnsTimeout extends Error {}

function withDeadline<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DnsTimeout()), Math.max(0, timeoutMs));
  });
  work.catch(() => undefined); // a lookup that loses the race may still fail later: nobody listens
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
