// The image checker's name resolution: the system resolver, except that
// - names under `localhost.` are loopback without asking DNS (RFC 6761 §6.3). Listing image URLs
//   must name a DNS host, so this is how a local image server is reached (tests, a developer's
//   stack) — and only where OUTBOUND_ALLOW_CIDRS opens 127.0.0.0/8: otherwise the SSRF policy
//   refuses the loopback address like any other;
// - one answer (or failure) per name is shared for ANSWER_TTL_MS, and lookups of a name already
//   being resolved wait for that one. A listing's images are mostly on one host, and a batch holds
//   thousands: without this every image was its own getaddrinfo on libuv's four threads (measured:
//   ~7 failed lookups/s for 1,189 images of one unresolvable host, so their Kafka batch took minutes
//   and every listing behind it waited). The addresses are still checked by the policy on every
//   call, so sharing an answer opens nothing.
import { systemResolver, type Resolver } from '../../common/outbound/index.ts';

export const ANSWER_TTL_MS = 30_000;
const MAX_NAMES = 10_000;

type Answer = Awaited<ReturnType<Resolver>>;

export function cachingResolver(resolve: Resolver = systemResolver, now = () => Date.now()): Resolver {
  const answers = new Map<string, { at: number; answer: Promise<Answer> }>();
  return (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost'))
      return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    const cached = answers.get(name);
    if (cached && now() - cached.at < ANSWER_TTL_MS) return cached.answer;
    if (answers.size >= MAX_NAMES) answers.clear(); // crude, and rare: a fresh start costs lookups only
    const answer = resolve(hostname);
    answers.set(name, { at: now(), answer });
    answer.catch(() => undefined); // a failure is shared too; callers see it through their own await
    return answer;
  };
}

export const imageResolver: Resolver = cachingResolver();
