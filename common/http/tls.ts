// HTTPS transport (spec §1: "All traffic is HTTPS (TLS 1.3)"). When TLS_CERT_FILE and TLS_KEY_FILE
// are set, every HTTP process also serves HTTPS on TLS_PORT (default: PORT + 363, e.g. 8443 for
// 8080) with TLS 1.3 only; older protocol versions fail the handshake. Deployments that terminate
// TLS at a proxy leave both unset and keep the plain listener behind it.
import fs from 'node:fs';
import type { TlsEnv } from '../env.ts';

export interface TlsConfig {
  cert: Buffer;
  key: Buffer;
  /** Undefined: PORT + 363. */
  port?: number;
}

export const TLS_PORT_OFFSET = 363;

/** The TLS configuration of this process (its parsed environment), or null when none is configured. */
export function readTlsConfig(env: TlsEnv): TlsConfig | null {
  if (!env.TLS_CERT_FILE || !env.TLS_KEY_FILE) return null;
  return {
    cert: fs.readFileSync(env.TLS_CERT_FILE),
    key: fs.readFileSync(env.TLS_KEY_FILE),
    port: env.TLS_PORT,
  };
}
