// The image checker's name resolution: the system resolver, except that names under `localhost.`
// are loopback without asking DNS (RFC 6761 §6.3), so a local image server can be reached by name
// (tests, a developer's stack; an IP literal such as 127.0.0.1 works too) — and only where
// OUTBOUND_ALLOW_CIDRS opens 127.0.0.0/8: otherwise the SSRF policy refuses the loopback address
// like any other.
import { systemResolver, type Resolver } from '../../common/outbound/index.ts';

export const imageResolver: Resolver = async (hostname) => {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return [{ address: '127.0.0.1', family: 4 }];
  return systemResolver(hostname);
};
