// Watches the commands a Redis server runs (MONITOR on a raw connection), to count what one movement costs.
import { connect, type Socket } from 'node:net';

/** A command as MONITOR shows it (`"EVALSHA" "…" …`); `lua`: run by a script, not sent by a client. */
export interface Seen { command: string; lua: boolean }

export interface Monitor {
  /** Waits until the server has shown a marker command sent after the ones to count, then stops: what it saw. */
  stop(): Promise<Seen[]>;
}

/** Starts watching the server on `port`; resolves once MONITOR is on. */
export async function monitor(port: number): Promise<Monitor> {
  const s: Socket = connect(port, '127.0.0.1');
  const seen: Seen[] = [];
  let buf = '';
  let onLine: ((l: string) => void) | undefined;
  s.setEncoding('utf8');
  s.on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\r\n'); i >= 0; i = buf.indexOf('\r\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 2);
      onLine?.(line);
    }
  });
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    onLine = (l) => { if (l === '+OK') resolve(); };
    s.write('MONITOR\r\n');
  });
  // A line is `+<time> [<db> <client>] "CMD" "arg" …`.
  onLine = (l) => {
    const m = /^\+\S+ \[\S+ ([^\]]*)\] (.*)$/.exec(l);
    if (m) seen.push({ command: m[2], lua: m[1] === 'lua' });
  };
  const marker = `sy-monitor-end-${process.pid}-${Date.now()}`;
  return {
    async stop() {
      // ECHO on another connection: once MONITOR shows it, every command sent before it has been shown too.
      const c = connect(port, '127.0.0.1');
      c.write(`ECHO ${marker}\r\n`);
      for (const end = Date.now() + 10_000; !seen.some((l) => l.command.includes(marker)); await new Promise((r) => setTimeout(r, 5))) {
        if (Date.now() > end) throw new Error('MONITOR did not show the end marker within 10 s');
      }
      c.destroy();
      s.destroy();
      return seen.filter((l) => !l.command.includes(marker));
    },
  };
}
