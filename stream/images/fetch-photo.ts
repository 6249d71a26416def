// The photo's bytes for decoding: a GET through the SSRF-safe client (same policy and pinning as
// the check), read up to the byte limit and no further.
import {
  OutboundRefusedError,
  OutboundTransportError,
  type OutboundClient,
} from '../../common/outbound/index.ts';

export type FetchedPhoto =
  { ok: true; body: Buffer } | { ok: false; outcome: 'download_failed' | 'too_large'; error: string };

export async function fetchPhoto(
  outbound: OutboundClient,
  url: string,
  { maxBytes, timeoutMs }: { maxBytes: number; timeoutMs: number },
): Promise<FetchedPhoto> {
  try {
    // One byte more than allowed tells "exactly the limit" from "larger".
    const response = await outbound.request({ url, method: 'GET', timeoutMs, maxBodyBytes: maxBytes + 1 });
    if (response.status < 200 || response.status >= 300)
      return { ok: false, outcome: 'download_failed', error: `status ${response.status}` };
    if (response.truncated || response.body.length > maxBytes)
      return { ok: false, outcome: 'too_large', error: `body larger than ${maxBytes} bytes` };
    return { ok: true, body: response.body };
  } catch (error) {
    if (!(error instanceof OutboundRefusedError) && !(error instanceof OutboundTransportError)) throw error;
    return { ok: false, outcome: 'download_failed', error: `${error.code}: ${error.message}`.slice(0, 500) };
  }
}
