// Streams a file as UTF-8 text chunks, never the whole file: the readers parse chunk by chunk.
// Refuses what is not text with a clear fatal error instead of uploading mojibake: NUL bytes
// (a binary file, e.g. a spreadsheet saved as .xlsx) or bytes that are not UTF-8 (e.g. a Latin-1
// export). A UTF-8 byte order mark is dropped, so the first column name is clean.
import { createReadStream } from 'node:fs';
import { FatalError } from '../fatal.ts';

export interface TextSource {
  chunks: AsyncGenerator<string>;
  /** Bytes read from the file so far. */
  bytesRead(): number;
}

export function readText(path: string, label: string): TextSource {
  let bytes = 0;
  async function* chunks(): AsyncGenerator<string> {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        if (bytes === 0 && chunk.includes(0)) {
          throw new FatalError(
            `${label} is not a text file (it holds NUL bytes); expected CSV, NDJSON or JSON`,
          );
        }
        const at = bytes;
        bytes += chunk.length;
        yield decode(decoder, chunk, label, at);
      }
      yield decode(decoder, undefined, label, bytes);
    } catch (error) {
      if (error instanceof FatalError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new FatalError(`${label}: cannot read it (${code})`);
    } finally {
      stream.destroy();
    }
  }
  return { chunks: chunks(), bytesRead: () => bytes };
}

function decode(decoder: TextDecoder, chunk: Buffer | undefined, label: string, at: number): string {
  try {
    return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
  } catch {
    throw new FatalError(
      `${label} is not UTF-8 text (invalid bytes after byte ${at}); save it as UTF-8 and try again`,
    );
  }
}
