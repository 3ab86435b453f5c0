// How many files (sockets included) this process may open: the connection cap must stay below it, or one
// connection too many would starve every other file the gateway needs (the store, upstream sockets, logs).
import { readFileSync } from 'node:fs';

export function maxOpenFiles(): number {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
  } catch {
    return Number.MAX_SAFE_INTEGER; // not Linux: the configured cap alone applies
  }
}
