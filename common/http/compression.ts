// Large answers go compressed to clients that ask for it (`Accept-Encoding`: brotli when offered,
// else gzip): a heatmap of Dar es Salaam is 592 KiB of JSON and 101 KiB as brotli, 0.4 s less over a
// 10 Mbit/s mobile link. Both at their fastest level (brotli quality 1 compresses that answer in ~3 ms
// to ~6 % more bytes than quality 4, which takes twice as long).
//
// Only from COMPRESS_FROM_BYTES up: a bulk create's reply to 100 listings (~10–15 KB) goes as it is,
// so the ingest path spends nothing on it, and the small replies that carry a secret (a new API key)
// are never compressed beside text a client chose (BREACH).
import compression from 'compression';
import type { RequestHandler } from 'express';
import zlib from 'node:zlib';

export const COMPRESS_FROM_BYTES = 32 * 1024;

export function compressLargeAnswers(): RequestHandler {
  return compression({
    threshold: COMPRESS_FROM_BYTES,
    level: 1,
    brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } },
  });
}
