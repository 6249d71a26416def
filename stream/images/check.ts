// One image URL: HEAD through the SSRF-safe client; servers that refuse HEAD get a GET for the
// first byte (Range: bytes=0-0), whose body is not read. OK = 2xx (or 206) with an image/* type.
import {
  OutboundRefusedError,
  OutboundTransportError,
  type OutboundClient,
} from '../../common/outbound/index.ts';
import type { ImageCheckResult } from '../../common/warehouse/image-checks.ts';

export async function checkImage(
  outbound: OutboundClient,
  url: string,
  timeoutMs: number,
): Promise<ImageCheckResult> {
  const started = Date.now();
  let method: 'HEAD' | 'GET' = 'HEAD';
  try {
    let response = await outbound.request({ url, method: 'HEAD', timeoutMs, maxBodyBytes: 0 });
    if ([403, 405, 501].includes(response.status)) {
      method = 'GET';
      response = await outbound.request({
        url,
        method: 'GET',
        headers: { range: 'bytes=0-0' },
        timeoutMs,
        maxBodyBytes: 0,
      });
    }
    const contentType = String(response.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const success = response.status >= 200 && response.status < 300;
    const isImage = contentType.startsWith('image/');
    return {
      method,
      is_reachable: 1,
      status_code: response.status,
      content_type: contentType.slice(0, 100),
      is_ok: success && isImage ? 1 : 0,
      error: !success ? `status ${response.status}` : isImage ? '' : `not an image: ${contentType || 'none'}`,
      duration_ms: Date.now() - started,
    };
  } catch (error) {
    if (!(error instanceof OutboundRefusedError) && !(error instanceof OutboundTransportError)) throw error;
    const refused = error instanceof OutboundRefusedError;
    return {
      method: refused ? 'none' : method,
      is_reachable: 0,
      status_code: 0,
      content_type: '',
      is_ok: 0,
      error: `${refused ? 'refused' : 'unreachable'}: ${error.code}: ${error.message}`.slice(0, 500),
      duration_ms: Date.now() - started,
    };
  }
}
