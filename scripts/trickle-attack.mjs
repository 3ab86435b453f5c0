// Measures how long a gateway keeps a connection that trickles a request body, over a raw socket.
//   node scripts/trickle-attack.mjs [--url http://127.0.0.1:3000] [--key KEY] [--every-ms 5000] [--max-s 120]
//     [--length 100000] [--path /v1/chat/completions] [--connections 1] [--server-pid PID]
// Sends headers declaring `--length` body bytes, then one body byte every `--every-ms`, and prints (one JSON line per
// connection) when the answer arrived, when the gateway ended its side (`server_fin_s`) and when the connection was
// gone (`closed_s`: the first write after the gateway closed it is refused, so it is known to within `--every-ms`);
// `closed_s: null` means it was still open after `--max-s` seconds. The socket ignores the gateway's end and keeps
// sending, as an attacker's would. Without `--key` the request carries no key. With `--server-pid` (a gateway on this
// host, Linux) it also prints `released_s`: when that process stopped holding the connection (its socket left the
// process's open files), which the client itself cannot see sooner than its next writes.
import { connect } from 'node:net';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const url = new URL(args.url ?? 'http://127.0.0.1:3000');
const everyMs = Number(args['every-ms'] ?? 5000);
const maxS = Number(args['max-s'] ?? 120);
const length = Number(args.length ?? 100_000);
const path = args.path ?? '/v1/chat/completions';
const connections = Number(args.connections ?? 1);

/** The inode of the server's end of the connection from local port `clientPort`, from /proc/net/tcp{,6}. */
function serverInode(clientPort) {
  const hex = (p) => p.toString(16).toUpperCase().padStart(4, '0');
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(f, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(`:${hex(Number(url.port || 80))}`) && cols[2]?.endsWith(`:${hex(clientPort)}`)) return cols[9];
    }
  }
  return undefined;
}

const holds = (pid, inode) => readdirSync(`/proc/${pid}/fd`).some((fd) => { try { return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`; } catch { return false; } });

function attack(n) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const seconds = () => Number(((Date.now() - t0) / 1000).toFixed(2));
    let text = '';
    let answered_s = null;
    let server_fin_s = null;
    let released_s = null;
    let watch;
    let sent = 0;
    const s = connect({ port: Number(url.port || 80), host: url.hostname, allowHalfOpen: true }, () => {
      const auth = args.key ? `Authorization: Bearer ${args.key}\r\n` : '';
      s.write(`POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\n${auth}Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`);
      sent = 1;
      if (args['server-pid']) {
        let inode; // the server's end gets its inode once the gateway accepts the connection
        watch = setInterval(() => {
          if (!inode || inode === '0') { inode = serverInode(s.localPort); return; }
          if (released_s === null && !holds(args['server-pid'], inode)) released_s = seconds();
        }, 20);
      }
    });
    const iv = setInterval(() => { if (s.writable && sent < length) { s.write(' '); sent++; } }, everyMs);
    const cap = setTimeout(() => done(null), maxS * 1000);
    s.on('data', (d) => {
      text += d;
      if (answered_s === null && /\r\n\r\n/.test(text)) answered_s = seconds();
    });
    s.on('error', () => undefined);
    s.on('end', () => { server_fin_s = seconds(); });
    s.on('close', () => done(seconds()));
    let over = false;
    function done(closed_s) {
      if (over) return;
      over = true;
      clearInterval(iv);
      clearInterval(watch);
      clearTimeout(cap);
      s.destroy();
      const head = text.split('\r\n\r\n')[0];
      resolve({
        connection: n,
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]) || null,
        connection_header: /\r\nconnection: *([^\r]*)/i.exec(head)?.[1] ?? null,
        answered_s,
        server_fin_s,
        ...(args['server-pid'] ? { released_s } : {}),
        closed_s,
        body_bytes_sent: sent,
      });
    }
  });
}

const results = await Promise.all(Array.from({ length: connections }, (_, i) => attack(i)));
for (const r of results) console.log(JSON.stringify(r));
