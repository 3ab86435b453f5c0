// Loopback ports for tests: one free to listen on, and one nothing listens on (a vendor that is down).
import { createServer } from 'node:net';

/** A port nothing listens on right now (taken and released; the caller listens on it next). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** A base URL whose connections are refused. */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}
