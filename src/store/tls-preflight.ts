// One TLS round trip to a store node before the Redis client connects. node-redis 5 listens for one socket error
// only, and a server that refuses the client's certificate (TLS 1.3 answers the handshake, then alerts and resets)
// raises two: the second would be an uncaught exception. Checked here first, a wrong CA or a missing certificate
// fails the start with the TLS error's own words instead.
import { isIP } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';

/** Resolves once the node answered a PING over TLS (any reply: a NOAUTH error proves the certificate was taken). */
export function tlsPreflight(host: string, port: number, opts: ConnectionOptions, timeoutMs = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ ...opts, host, port, servername: isIP(host) ? undefined : host });
    let settled = false;
    const done = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.removeAllListeners('data');
      socket.on('error', () => {}); // whatever else the dying socket raises
      socket.destroy();
      if (err) reject(err); else resolve();
    };
    const timer = setTimeout(() => done(new Error(`no TLS answer from ${host}:${port} within ${timeoutMs} ms`)), timeoutMs);
    socket.once('secureConnect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.once('data', () => done());
    socket.on('error', (err) => done(readable(err)));
    socket.once('close', () => done(new Error(`${host}:${port} closed the TLS connection`)));
  });
}

/** OpenSSL's text ("80…:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:…") cut to its reason. */
function readable(err: Error & { code?: string }): Error {
  const m = /SSL routines:[^:]*:([^:]+):/.exec(err.message);
  return m ? new Error(`TLS: ${m[1]}${err.code ? ` (${err.code})` : ''}`, { cause: err }) : err;
}
