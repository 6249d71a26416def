// HTTPS transport (spec §1, TLS 1.3): with TLS_CERT_FILE/TLS_KEY_FILE a gateway serves HTTPS on
// TLS_PORT with TLS 1.3 only. A TLS 1.2-only client is refused in the handshake.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestKey } from '../support/api.ts';
import { freePort, startGateway, type ExtraGateway } from '../support/auth.ts';

let dir: string;
let gateway: ExtraGateway;
let tlsPort: number;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  tlsPort = await freePort();
  gateway = await startGateway({
    TLS_CERT_FILE: path.join(dir, 'cert.pem'),
    TLS_KEY_FILE: path.join(dir, 'key.pem'),
    TLS_PORT: String(tlsPort),
  });
});

afterAll(async () => {
  await gateway?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function handshake(maxVersion: tls.SecureVersion): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: '127.0.0.1', port: tlsPort, maxVersion, rejectUnauthorized: false },
      () => {
        const protocol = socket.getProtocol() ?? '';
        socket.end();
        resolve(protocol);
      },
    );
    socket.once('error', reject);
  });
}

describe('TLS listener (security)', () => {
  it('refuses a client that only speaks TLS 1.2', async () => {
    await expect(handshake('TLSv1.2')).rejects.toThrow(/version|protocol|alert/i);
  });

  it('happy: serves the API over TLS 1.3', async () => {
    expect(await handshake('TLSv1.3')).toBe('TLSv1.3');
    const { key } = await createTestKey();
    const status = await new Promise<number>((resolve, reject) => {
      https
        .get(
          {
            host: '127.0.0.1',
            port: tlsPort,
            path: '/api/v1/listings/bulk',
            headers: { 'X-API-Key': key },
            rejectUnauthorized: false,
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        )
        .on('error', reject);
    });
    expect(status).toBe(200);
  });
});
