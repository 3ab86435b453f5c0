// A pool of keep-alive upstream connections (undici's Agent: per origin, any number of origins). Its connect
// timeout is a plain timer: undici's own connect and header timers tick in half seconds, so a 200 ms bound would
// fire anywhere up to a second later.
import type { LookupFunction, Socket } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { UpstreamFailure } from './upstream-failure.js';

export type Pool = Dispatcher;

export interface PoolOptions {
  /** Connections per origin at most (none: unbounded). */
  maxConnections?: number;
  /** A fresh connection must be up within this; a pooled one goes straight to the first-byte clock. */
  connectMs: number;
  /** Resolves host names: where foreign URLs are checked against private addresses, at connect time. */
  lookup?: LookupFunction;
}

export function newPool(o: PoolOptions): Pool {
  // No header or body timeout of undici's: the first-byte clock is the call's (upstream-call.ts), and each reader
  // bounds pauses by the channel's idle_ms, in the way its reason names.
  return new Agent({ connections: o.maxConnections ?? null, headersTimeout: 0, bodyTimeout: 0, connect: timedConnector(o) });
}

function timedConnector(o: PoolOptions): buildConnector.connector {
  // undici's connector returns the socket it opens (its types say void): a timeout destroys it, and the socket's
  // error reaches the callback. Without one, the timeout answers the callback and a late socket is closed.
  const connect = buildConnector({ timeout: 0, ...(o.lookup ? { lookup: o.lookup } : {}) }) as (opts: buildConnector.Options, cb: buildConnector.Callback) => Socket | undefined;
  return (opts, callback) => {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const socket = connect(opts, (...args) => {
      clearTimeout(timer);
      if (done) { args[1]?.destroy(); return; }
      done = true;
      callback(...args);
    });
    if (done) return;
    timer = setTimeout(() => {
      const err = new UpstreamFailure('connect', `connect timed out after ${o.connectMs} ms`);
      if (socket) { socket.destroy(err); return; }
      done = true;
      callback(err, null);
    }, o.connectMs);
  };
}
