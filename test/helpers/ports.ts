// Loopback ports for tests: one free to listen on, one for a server another process opens, and one nothing listens on
// (a vendor that is down).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const bindable = (port: number) => new Promise<number | undefined>((resolve) => {
  const srv = createServer();
  srv.once('error', () => resolve(undefined));
  srv.listen(port, '127.0.0.1', () => {
    const got = (srv.address() as { port: number }).port;
    srv.close(() => resolve(got));
  });
});

/** A port nothing listens on right now (taken and released; the caller listens on it next). */
export async function freePort(): Promise<number> {
  return (await bindable(0))!;
}

/** The first port of the kernel's ephemeral range, where outgoing connections take their local ports. */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/**
 * A free port for a server that another process opens later (redis-server). It lies below the ephemeral range: a
 * port from `freePort` can be taken in between as the local port of any of the suite's outgoing connections, and then
 * the server cannot listen. The caller still retries with another port if the server fails to start.
 */
export async function serverPort(): Promise<number> {
  const low = 10_000;
  const high = ephemeralLow();
  if (high - low < 1000) return freePort();
  for (;;) {
    const port = await bindable(low + Math.floor(Math.random() * (high - low)));
    if (port) return port;
  }
}

/** A base URL whose connections are refused. */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}
