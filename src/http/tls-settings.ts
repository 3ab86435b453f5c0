// TLS on the gateway's own listener, for operators without a proxy in front and for clients that dial only wss://
// (OpenAI's Realtime WebSocket client): SWITCHYARD_TLS_CERT and SWITCHYARD_TLS_KEY name PEM files (the certificate
// chain and its private key). Read at start and again on every reload, so a renewed certificate needs no restart.
import { readFileSync } from 'node:fs';

export interface TlsFiles { cert: string; key: string }

/** The files to serve TLS with, or undefined for plain HTTP; one set without the other is a mistake, refused. */
export function tlsFiles(env: NodeJS.ProcessEnv): TlsFiles | undefined {
  const cert = env.SWITCHYARD_TLS_CERT;
  const key = env.SWITCHYARD_TLS_KEY;
  if (!cert && !key) return undefined;
  if (!cert || !key) throw new Error('SWITCHYARD_TLS_CERT and SWITCHYARD_TLS_KEY are set together (a certificate and its key), or neither');
  return { cert, key };
}

/** The PEM contents; a file that cannot be read fails the start (or the reload, which keeps the running ones). */
export function readTls(f: TlsFiles): { cert: Buffer; key: Buffer } {
  return { cert: readFileSync(f.cert), key: readFileSync(f.key) };
}
