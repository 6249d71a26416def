// The opening of ClickHouse's native TCP protocol (what clickhouse-client speaks): a client Hello
// with user and password, answered by the server's Hello or an Exception. Enough to prove that a
// login works over TCP without installing a native client; queries go over HTTP in the tests.
import net from 'node:net';

const CLIENT_REVISION = 54213; // an old revision keeps the server's answer short (server name, version, time zone)

function varUInt(value: number): Buffer {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value) byte |= 0x80;
    bytes.push(byte);
  } while (value);
  return Buffer.from(bytes);
}

function str(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  return Buffer.concat([varUInt(bytes.length), bytes]);
}

class Reader {
  private at = 0;
  constructor(private readonly buffer: Buffer) {}
  varUInt(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (this.at >= this.buffer.length) throw new RangeError('short');
      const byte = this.buffer[this.at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
  }
  str(): string {
    const length = this.varUInt();
    if (this.at + length > this.buffer.length) throw new RangeError('short');
    const value = this.buffer.toString('utf8', this.at, this.at + length);
    this.at += length;
    return value;
  }
  int32(): number {
    if (this.at + 4 > this.buffer.length) throw new RangeError('short');
    const value = this.buffer.readInt32LE(this.at);
    this.at += 4;
    return value;
  }
}

export type NativeHello =
  | { ok: true; server: string; version: string; timezone: string }
  | { ok: false; code: number; name: string; message: string };

/** The bytes of a client Hello. */
export function helloBytes(user: string, password: string, database = ''): Buffer {
  return Buffer.concat([
    varUInt(0), // ClientHello
    str('rls-tests'),
    varUInt(24),
    varUInt(1),
    varUInt(CLIENT_REVISION),
    str(database),
    str(user),
    str(password),
  ]);
}

/** Sends a client Hello and returns the server's answer. */
export function nativeHello(
  port: number,
  user: string,
  password: string,
  database = '',
): Promise<NativeHello> {
  return nativeAnswer(port, helloBytes(user, password, database));
}

/** Sends `bytes` as they are (a Hello, or anything else) and returns the server's first packet. */
export function nativeAnswer(port: number, bytes: Buffer, timeoutMs = 5_000): Promise<NativeHello> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('closed without an answer')));
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const reader = new Reader(received);
      try {
        const packet = reader.varUInt();
        if (packet === 0) {
          const server = reader.str();
          const version = `${reader.varUInt()}.${reader.varUInt()}`;
          reader.varUInt(); // revision
          resolve({ ok: true, server, version, timezone: reader.str() });
        } else if (packet === 2) {
          const code = reader.int32();
          resolve({ ok: false, code, name: reader.str(), message: reader.str() });
        } else {
          reject(new Error(`unexpected packet ${packet}`));
        }
        socket.destroy();
      } catch (error) {
        if (!(error instanceof RangeError)) reject(error); // else wait for more bytes
      }
    });
  });
}
