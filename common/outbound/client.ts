// The one way the service calls URLs that integrators gave it (webhooks, listing images). Each call
// checks the target (target.ts: DNS inside the call's deadline), then connects to exactly the
// checked address via a custom `lookup` — Host and SNI keep the name, so TLS still verifies it —
// with no redirects followed, a hard deadline and a capped response body.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Logger } from '../logger.ts';
import { OutboundRefusedError, OutboundTransportError } from './errors.ts';
import type { AddressPolicy } from './ip-policy.ts';
import {
  checkTarget,
  systemResolver,
  type CheckedTarget,
  type CheckOptions,
  type Resolver,
} from './target.ts';

export interface OutboundRequest {
  url: string | URL;
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole-call deadline (DNS + connect + send + response), ms. */
  timeoutMs: number;
  /** Bytes of the response body kept; the rest is discarded and the socket closed. */
  maxBodyBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** True when the body was cut at maxBodyBytes. */
  truncated: boolean;
  target: CheckedTarget;
}

export interface OutboundClient {
  /** Resolves and checks a URL (no connection); `timeoutMs` bounds the DNS answer. */
  check(url: string | URL, options?: CheckOptions): Promise<CheckedTarget>;
  /** check + send, both inside `timeoutMs`. */
  request(request: OutboundRequest): Promise<OutboundResponse>;
  /**
   * Calls a target `check` accepted, for callers that schedule by the resolved address between the
   * two (image checks); `timeoutMs` is what is left of their deadline. `request.url` is ignored.
   */
  send(target: CheckedTarget, request: Omit<OutboundRequest, 'url'>): Promise<OutboundResponse>;
}

export interface OutboundClientOptions {
  policy: AddressPolicy;
  resolver?: Resolver;
  userAgent?: string;
  /** Gets the detail of refusals (what a host resolved to), which callers never see. */
  logger?: Logger;
  /**
   * Runs each connection in a slot of its resolved address (politeness per server, whatever names
   * point at it: image checks). Time spent waiting for the slot is not part of the call's deadline.
   */
  connectSlot?: <T>(address: string, task: () => Promise<T>) => Promise<T>;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  const resolver = options.resolver ?? systemResolver;
  const userAgent = options.userAgent ?? 'RentalListingsService/1 (+webhooks)';

  async function check(url: string | URL, checkOptions: CheckOptions = {}): Promise<CheckedTarget> {
    try {
      return await checkTarget(url, options.policy, resolver, checkOptions);
    } catch (error) {
      if (error instanceof OutboundRefusedError && error.detail)
        options.logger?.warn('outbound call refused', { code: error.code, detail: error.detail });
      throw error;
    }
  }

  function sendInSlot(target: CheckedTarget, req: Omit<OutboundRequest, 'url'>): Promise<OutboundResponse> {
    if (!options.connectSlot) return send(target, req, userAgent);
    return options.connectSlot(target.address, () => send(target, req, userAgent));
  }

  async function request(req: OutboundRequest): Promise<OutboundResponse> {
    const started = Date.now();
    const target = await check(req.url, { timeoutMs: req.timeoutMs });
    return sendInSlot(target, { ...req, timeoutMs: req.timeoutMs - (Date.now() - started) });
  }

  return { check, request, send: sendInSlot };
}

function send(
  target: CheckedTarget,
  req: Omit<OutboundRequest, 'url'>,
  userAgent: string,
): Promise<OutboundResponse> {
  // The deadline may already be spent (DNS, or a caller's queue): fail like a timeout, unconnected.
  if (req.timeoutMs <= 0)
    return Promise.reject(new OutboundTransportError('no time left for the call', 'timeout'));
  const maxBody = req.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Always answers with the address we checked: no second DNS query, so no rebinding window.
  const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    const cb = callback as (...args: unknown[]) => void;
    if ((lookupOptions as { all?: boolean }).all)
      cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  const transport = target.url.protocol === 'https:' ? https : http;
  const headers: Record<string, string | number> = { 'user-agent': userAgent, ...req.headers };
  if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);

  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, response?: OutboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(response!);
    };
    const outgoing = transport.request(
      target.url,
      {
        method: req.method ?? 'GET',
        headers,
        lookup: pinnedLookup,
        agent: false, // a fresh socket per call: no pooled connection to a stale address
        // Host and SNI stay the URL's name; Node sends SNI only for names, never for IP literals.
        ...(target.url.protocol === 'https:' && target.hostname !== target.address
          ? { servername: target.hostname }
          : {}),
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const done = () =>
          finish(null, {
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: Buffer.concat(chunks),
            truncated,
            target,
          });
        incoming.on('data', (chunk: Buffer) => {
          if (settled) return;
          const room = maxBody - size;
          if (chunk.length > room) {
            // Enough: keep what fits, answer, and close the socket instead of reading on.
            chunks.push(chunk.subarray(0, room));
            size = maxBody;
            truncated = true;
            done();
            incoming.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        incoming.on('end', done);
        incoming.on('error', (error) => finish(new OutboundTransportError(error.message, 'response_error')));
        incoming.on('aborted', () => finish(new OutboundTransportError('response aborted', 'aborted')));
      },
    );
    const timer = setTimeout(() => {
      finish(new OutboundTransportError(`no complete response within ${req.timeoutMs} ms`, 'timeout'));
      outgoing.destroy();
    }, req.timeoutMs);
    outgoing.on('socket', (socket) => {
      // Defence in depth: the socket must end up at the checked address.
      socket.once('connect', () => {
        if (socket.remoteAddress && !sameAddress(socket.remoteAddress, target.address)) {
          outgoing.destroy(new OutboundTransportError('connected to an unchecked address', 'pinning'));
        }
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      finish(
        error instanceof OutboundTransportError
          ? error
          : new OutboundTransportError(error.message, error.code ?? 'request_error'),
      ),
    );
    outgoing.end(req.body);
  });
}

function sameAddress(a: string, b: string): boolean {
  const strip = (x: string) => x.toLowerCase().replace(/^::ffff:(?=\d+\.)/, '');
  return strip(a) === strip(b);
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds from now, if present and sane. */
export function retryAfterMs(headers: http.IncomingHttpHeaders, now = Date.now()): number | undefined {
  const raw = headers['retry-after'];
  if (typeof raw !== 'string' || !raw.trim()) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
